-- End-to-end test in a real Neovim (0.7+): run by tests/nvim.rs as
--   nvim --headless --clean -u tests/nvim/e2e.lua
-- with SYCL_ANALYZER_ROOT (the repository) and SYCL_ANALYZER_BIN (the server binary) set.
-- Exits non-zero on any failure.
local root = os.getenv('SYCL_ANALYZER_ROOT')
local bin = os.getenv('SYCL_ANALYZER_BIN')

local function fail(msg)
  io.stderr:write('nvim e2e FAILED: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local function step(msg)
  io.stdout:write('nvim e2e: ' .. msg .. '\n')
end

vim.cmd('filetype on')
vim.opt.runtimepath:append(root .. '/editors/nvim')
vim.cmd('runtime plugin/sycl_analyzer.lua')
require('sycl_analyzer').setup({ cmd = { bin, 'lsp' } })

vim.cmd('edit ' .. root .. '/examples/vector-math/src/main.cpp')
local buf = vim.api.nvim_get_current_buf()
if vim.fn.exists(':SyclMacros') ~= 2 or vim.fn.exists(':SyclTargets') ~= 2 then
  fail('user commands missing')
end

local function mismatch(aspect)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.code == 'aspect-mismatch' and d.message:find("'" .. aspect .. "'", 1, true) then
      return d
    end
  end
  return nil
end

if not vim.wait(30000, function() return mismatch('fp64') ~= nil end, 50) then
  fail('no aspect-mismatch diagnostic within 30 s; got ' .. vim.inspect(vim.diagnostic.get(buf)))
end
local d = mismatch('fp64')
if d.source ~= 'sycl-analyzer' then
  fail('source is ' .. tostring(d.source))
end
local related = d.user_data and d.user_data.lsp and d.user_data.lsp.relatedInformation or {}
if #related ~= 3 then
  fail('expected 3 related locations (the chain), got ' .. vim.inspect(related))
end
if not related[3].message:find("uses 'double literal 0.5' here", 1, true) then
  fail('the chain does not end at the literal: ' .. related[3].message)
end
if not related[3].location.uri:find('blend.hpp', 1, true) then
  fail('the use is not in blend.hpp: ' .. related[3].location.uri)
end
step('diagnostic with its chain')

local lnum = d.lnum
local line = vim.api.nvim_buf_get_lines(buf, lnum, lnum + 1, false)[1]
local col = line:find('fp16', 1, true)
local results = vim.lsp.buf_request_sync(buf, 'textDocument/hover', {
  textDocument = vim.lsp.util.make_text_document_params(buf),
  position = { line = lnum, character = col },
}, 10000)
local hover = ''
for _, r in pairs(results or {}) do
  if r.result and r.result.contents then
    hover = hover .. (r.result.contents.value or '')
  end
end
if not hover:find('sycl::aspect::fp16` = 5', 1, true) then
  fail('hover text: ' .. hover)
end
step('hover on an aspect')

-- Fix the problem in the buffer (unsaved): declare fp64 too.
local fixed = line:gsub('sycl::aspect::fp16%)', 'sycl::aspect::fp16, sycl::aspect::fp64)', 1)
vim.api.nvim_buf_set_lines(buf, lnum, lnum + 1, false, { fixed })
if not vim.wait(30000, function() return mismatch('fp64') == nil end, 50) then
  fail('the diagnostic did not clear after the fix')
end
step('the fix clears the diagnostic')


-- :SyclMacros opens the macros of the project's targets (from compile_commands.json).
vim.cmd('SyclMacros')
local found = vim.wait(10000, function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('sycl-analyzer://macros', 1, true) then
      local text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
      return text:find('#define __SYCL_TARGET_INTEL_GPU_DG1__ 1', 1, true) ~= nil
    end
  end
  return false
end, 50)
if not found then
  fail(':SyclMacros did not show the macros')
end
step(':SyclMacros')

-- A code lens above each kernel says where it runs; its command shows the whole matrix.
local lenses = vim.lsp.buf_request_sync(buf, 'textDocument/codeLens', {
  textDocument = vim.lsp.util.make_text_document_params(buf),
}, 10000)
local lens_titles = {}
for _, r in pairs(lenses or {}) do
  for _, l in ipairs(r.result or {}) do
    table.insert(lens_titles, l.command and l.command.title or '')
  end
end
local saw_lens = false
for _, t in ipairs(lens_titles) do
  if t:find('targets', 1, true) and t:find('runs on', 1, true) then
    saw_lens = true
  end
end
if not saw_lens then
  fail('no code lens saying where a kernel runs: ' .. vim.inspect(lens_titles))
end
vim.lsp.commands['sycl-analyzer.showKernelMatrix']({ command = 'sycl-analyzer.showKernelMatrix' }, {})
local shown = vim.wait(10000, function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_get_name(b):find('sycl-analyzer://kernel-matrix', 1, true) then
      local text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
      return text:find('Kernels × targets', 1, true) ~= nil and text:find('intel_gpu_dg1', 1, true) ~= nil
    end
  end
  return false
end, 50)
if not shown then
  fail("the code lens' command did not show the kernel matrix")
end
if vim.fn.exists(':SyclKernelMatrix') ~= 2 then
  fail(':SyclKernelMatrix missing')
end
step('code lens and the kernel matrix')

-- Inactive code: a file of its own root (a second server), with an `#if 0` group.
local dir = vim.fn.tempname()
vim.fn.mkdir(dir .. '/.git', 'p')
vim.fn.writefile({ 'int active();', '#if 0', 'int skipped();', '#endif' }, dir .. '/inactive.cpp')
vim.cmd('edit ' .. dir .. '/inactive.cpp')
local ibuf = vim.api.nvim_get_current_buf()
local function greyed(row)
  if vim.lsp.semantic_tokens then
    -- Neovim 0.9+: the server's semantic token.
    for _, t in ipairs(vim.lsp.semantic_tokens.get_at_pos(ibuf, row, 0) or {}) do
      if t.type == 'comment' and t.modifiers and t.modifiers.inactive then
        return true
      end
    end
    return false
  end
  -- Older Neovim: the plugin's extmark from textDocument/inactiveRegions.
  local ns = require('sycl_analyzer').inactive_ns
  local marks = vim.api.nvim_buf_get_extmarks(ibuf, ns, { row, 0 }, { row, -1 }, { details = true })
  for _, m in ipairs(marks) do
    if m[4].hl_group == 'SyclAnalyzerInactive' then
      return true
    end
  end
  -- A mark starting on an earlier line that covers this one.
  marks = vim.api.nvim_buf_get_extmarks(ibuf, ns, 0, { row, 0 }, { details = true })
  for _, m in ipairs(marks) do
    if m[2] <= row and m[4].end_row and m[4].end_row >= row then
      return true
    end
  end
  return false
end
if not vim.wait(30000, function() return greyed(2) end, 50) then
  fail('line 3 (inside #if 0) is not marked inactive')
end
if greyed(0) then
  fail('the active line 1 is marked inactive')
end
step('inactive code is greyed out (' .. (vim.lsp.semantic_tokens and 'semantic tokens' or 'inactiveRegions') .. ')')
vim.fn.delete(dir, 'rf')

vim.cmd('qall!')
