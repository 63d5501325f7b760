-- :checkhealth sycl_analyzer in a headless Neovim (run by tests/nvim.rs): the plugin set up with
-- a valid and a misspelt target, on examples/vector-math/src/main.cpp once the client is
-- attached; the report's lines go to stdout.
local root = os.getenv('SYCL_ANALYZER_ROOT')
-- The other Neovim test edits the same file at the same time.
vim.opt.swapfile = false
vim.cmd('filetype on')
vim.opt.runtimepath:append(root .. '/editors/nvim')
vim.cmd('runtime plugin/sycl_analyzer.lua')
local plugin = require('sycl_analyzer')
plugin.setup({ cmd = { os.getenv('SYCL_ANALYZER_BIN'), 'lsp' }, targets = { 'intel_gpu_pvc', 'intel_gpu_pvcc' } })
vim.cmd('edit ' .. root .. '/examples/vector-math/src/main.cpp')
local attached = vim.wait(20000, function()
  for _, c in pairs(vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = 0 }) or vim.lsp.buf_get_clients(0)) do
    if c.name == 'sycl-analyzer' then
      return true
    end
  end
  return false
end, 50)
io.stdout:write('attached: ' .. tostring(attached) .. '\n')
vim.cmd('checkhealth sycl_analyzer')
for _, l in ipairs(vim.api.nvim_buf_get_lines(0, 0, -1, false)) do
  io.stdout:write('HEALTH ' .. l .. '\n')
end
vim.cmd('qa!')
