-- :checkhealth sycl_analyzer. Neovim 0.9+ reports through vim.health; 0.7/0.8 through the
-- `health` module's report_* functions.
local M = {}

local h = vim.health and vim.health.start and {
  start = vim.health.start,
  ok = vim.health.ok,
  info = vim.health.info,
  warn = vim.health.warn,
  error = vim.health.error,
} or (function()
  local old = require('health')
  return {
    start = old.report_start,
    ok = old.report_ok,
    info = old.report_info,
    warn = old.report_warn,
    error = old.report_error,
  }
end)()

local function lines(text)
  return vim.split(vim.trim(text or ''), '\n', { plain = true })
end

-- The clients of sycl-analyzer attached to the current buffer, on any Neovim version.
local function attached(bufnr)
  local all = vim.lsp.get_clients and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  local found = {}
  for _, c in pairs(all) do
    if c.name == 'sycl-analyzer' then
      table.insert(found, c)
    end
  end
  return found
end

function M.check()
  local plugin = require('sycl_analyzer')
  local config = plugin.config

  h.start('Neovim')
  local v = vim.version()
  local version = string.format('%d.%d.%d', v.major, v.minor, v.patch)
  if vim.fn.has('nvim-0.7') == 1 then
    h.ok('Neovim ' .. version)
  else
    h.error('Neovim ' .. version .. ': the plugin needs 0.7 or newer')
  end

  h.start('The server')
  local exe = config.cmd and config.cmd[1]
  if not exe or vim.fn.executable(exe) ~= 1 then
    h.error(string.format('%s: not found or not executable', tostring(exe)), {
      'Install it: cargo install --locked --path . (in the sycl-analyzer repository), then make sure ~/.cargo/bin is on PATH',
      "Or name it: require('sycl_analyzer').setup({ cmd = { '/path/to/sycl-analyzer', 'lsp' } })",
    })
    return
  end
  local path = vim.fn.exepath(exe)
  h.ok('binary: ' .. (path ~= '' and path or exe))
  local out = vim.fn.system({ exe, '--version' })
  if vim.v.shell_error ~= 0 then
    h.error('`' .. exe .. ' --version` failed: ' .. out)
    return
  end
  local version_lines = lines(out)
  h.ok('version: ' .. version_lines[1])
  for i = 2, #version_lines do
    h.info(version_lines[i])
  end

  -- :checkhealth shows its report in a buffer of its own: the user's is the alternate one.
  local bufnr = vim.api.nvim_get_current_buf()
  if vim.bo[bufnr].filetype == 'checkhealth' and vim.fn.bufnr('#') > 0 then
    bufnr = vim.fn.bufnr('#')
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  local root = name ~= '' and plugin.find_root(name) or nil

  h.start('Targets and device configs')
  local targets = config.targets
  if type(targets) == 'string' then
    targets = vim.split(targets, ',', { plain = true, trimempty = true })
  end
  if targets and #targets > 0 then
    local args = { exe, 'query', 'target', '--format', 'json' }
    vim.list_extend(args, targets)
    local ok, answers = pcall(vim.fn.json_decode, vim.fn.system(args))
    if not ok or type(answers) ~= 'table' then
      h.error('could not check the targets: ' .. table.concat(args, ' '))
    else
      for _, a in ipairs(answers) do
        if a.valid then
          h.ok(string.format('target %s (%s)', a.input, a.canonical))
        else
          local hint = (a.suggestions and #a.suggestions > 0) and { 'did you mean ' .. table.concat(a.suggestions, ', ') .. '?' } or nil
          h.error(a.error or ('invalid target ' .. a.input), hint)
        end
      end
    end
  else
    h.info('targets: not configured; -fsycl-targets from compile_commands.json, else spir64')
  end
  for _, file in ipairs(config.device_config or {}) do
    local abs = file:sub(1, 1) == '/' and file or ((root or vim.fn.getcwd()) .. '/' .. file)
    if vim.fn.filereadable(abs) == 1 then
      h.ok('device config: ' .. file)
    else
      h.warn('device config not readable: ' .. file .. ' (relative paths are taken from the root)')
    end
  end

  h.start('This buffer')
  if root then
    h.info('root: ' .. root)
    local db = config.compile_commands
    local candidates = db and { db } or vim.list_extend({ root .. '/compile_commands.json' }, vim.fn.glob(root .. '/build*/compile_commands.json', false, true))
    local found
    for _, c in ipairs(candidates) do
      if vim.fn.filereadable(c) == 1 then
        found = c
        break
      end
    end
    if found then
      h.ok('compile_commands.json: ' .. found)
    else
      h.info('no compile_commands.json at the root or in build*/ (targets from the setup, else spir64)')
    end
  end
  local clients = attached(bufnr)
  local filetype = vim.bo[bufnr].filetype
  if #clients > 0 then
    h.ok(string.format('sycl-analyzer is attached to %s (client %d)', vim.fn.fnamemodify(name, ':~:.'), clients[1].id))
  elseif vim.tbl_contains(config.filetypes, filetype) then
    h.warn('sycl-analyzer is not attached to this ' .. filetype .. ' buffer', {
      "Call require('sycl_analyzer').setup({}) in your config; :LspLog shows why a start failed",
    })
  else
    h.info('the current buffer is not C/C++ (filetype ' .. (filetype ~= '' and filetype or 'none') .. ')')
  end
end

return M
