-- User commands of sycl-analyzer; the server starts on require('sycl_analyzer').setup{}.
if vim.g.loaded_sycl_analyzer then
  return
end
vim.g.loaded_sycl_analyzer = true

vim.api.nvim_create_user_command('SyclMacros', function(opts)
  require('sycl_analyzer').show_macros(opts.args)
end, { nargs = '?', desc = 'sycl-analyzer: macros predefined for the targets (or the given list)' })

vim.api.nvim_create_user_command('SyclTargets', function()
  require('sycl_analyzer').show_targets()
end, { desc = 'sycl-analyzer: the device table' })

vim.api.nvim_create_user_command('SyclKernelMatrix', function()
  require('sycl_analyzer').show_kernel_matrix()
end, { desc = 'sycl-analyzer: which kernel runs on which target, and why not' })
