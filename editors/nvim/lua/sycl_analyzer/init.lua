-- sycl-analyzer for Neovim: starts `sycl-analyzer lsp` for C/C++ buffers and device-config YAML
-- files, and adds :SyclMacros, :SyclTargets and :SyclKernelMatrix. Works with Neovim 0.7 (vim.lsp.start_client)
-- and 0.8+ (vim.lsp.start).
local M = {}

M.config = {
  -- The server command; `sycl-analyzer` must be on PATH unless a full path is given.
  cmd = { 'sycl-analyzer', 'lsp' },
  -- -fsycl-targets (a list or a comma-separated string); nil: from compile_commands.json.
  targets = nil,
  -- Device-config YAML files (paths relative to the root); nil: from compile_commands.json.
  device_config = nil,
  -- A compile_commands.json to read -fsycl-targets from; nil: found at the root or in build*/.
  compile_commands = nil,
  filetypes = { 'c', 'cpp', 'cuda' },
  root_markers = { 'compile_commands.json', '.git' },
}

local clients_by_root = {}

-- Code the device compile skips (`#if` groups not taken) is greyed out. Neovim 0.9+ shows it
-- from the server's semantic tokens (type `comment`, modifier `inactive`); older versions have
-- no semantic tokens, so they take clangd's `textDocument/inactiveRegions` notification instead.
local has_semantic_tokens = vim.lsp.semantic_tokens ~= nil
M.inactive_ns = vim.api.nvim_create_namespace('sycl_analyzer_inactive')

-- Default links, kept by a colorscheme that defines its own (and set again after one loads).
local function set_highlights()
  if has_semantic_tokens then
    -- Also styles the rare theme that clears `@lsp.type.comment`; 0.7/0.8 refuse `@` names.
    vim.api.nvim_set_hl(0, '@lsp.mod.inactive', { link = 'Comment', default = true })
  end
  vim.api.nvim_set_hl(0, 'SyclAnalyzerInactive', { link = 'Comment', default = true })
end

-- textDocument/inactiveRegions: whole lines, marked in the buffer (extmarks follow edits until
-- the next notification replaces them).
local function on_inactive_regions(_, result)
  if not result or not result.textDocument then
    return
  end
  local bufnr = vim.uri_to_bufnr(result.textDocument.uri)
  if not vim.api.nvim_buf_is_loaded(bufnr) then
    return
  end
  vim.api.nvim_buf_clear_namespace(bufnr, M.inactive_ns, 0, -1)
  local count = vim.api.nvim_buf_line_count(bufnr)
  for _, r in ipairs(result.regions or {}) do
    local last = math.min(r['end'].line, count - 1)
    if r.start.line <= last then
      local text = vim.api.nvim_buf_get_lines(bufnr, last, last + 1, false)[1] or ''
      vim.api.nvim_buf_set_extmark(bufnr, M.inactive_ns, r.start.line, 0, {
        end_row = last,
        end_col = #text,
        hl_group = 'SyclAnalyzerInactive',
        priority = 150,
      })
    end
  end
end

-- The nearest directory upwards holding a root marker, else the current directory.
function M.find_root(fname)
  local dir = vim.fn.fnamemodify(fname, ':p:h')
  while dir and dir ~= '' do
    for _, marker in ipairs(M.config.root_markers) do
      local p = dir .. '/' .. marker
      if vim.fn.filereadable(p) == 1 or vim.fn.isdirectory(p) == 1 then
        return dir
      end
    end
    if vim.fn.glob(dir .. '/build*/compile_commands.json') ~= '' then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ':h')
    if parent == dir then
      break
    end
    dir = parent
  end
  return vim.fn.getcwd()
end

function M.init_options()
  local targets = M.config.targets
  if type(targets) == 'table' then
    targets = table.concat(targets, ',')
  end
  return {
    targets = targets,
    deviceConfig = M.config.device_config,
    compileCommands = M.config.compile_commands,
  }
end

-- Is this YAML file one of the configured device-config files?
local function is_device_config(fname, root)
  for _, p in ipairs(M.config.device_config or {}) do
    local abs = p:sub(1, 1) == '/' and p or (root .. '/' .. p)
    if vim.fn.fnamemodify(abs, ':p') == vim.fn.fnamemodify(fname, ':p') then
      return true
    end
  end
  return false
end

-- Attaches the buffer to the server of its root, starting it if needed.
function M.attach(bufnr)
  bufnr = bufnr or vim.api.nvim_get_current_buf()
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == '' then
    return nil
  end
  local root = M.find_root(fname)
  if vim.bo[bufnr].filetype == 'yaml' and not is_device_config(fname, root) then
    return nil
  end
  local capabilities = vim.lsp.protocol.make_client_capabilities()
  if not has_semantic_tokens then
    capabilities = vim.tbl_deep_extend('force', capabilities, {
      textDocument = { inactiveRegionsCapabilities = { inactiveRegions = true } },
    })
  end
  local conf = {
    name = 'sycl-analyzer',
    cmd = M.config.cmd,
    root_dir = root,
    init_options = M.init_options(),
    capabilities = capabilities,
    handlers = { ['textDocument/inactiveRegions'] = on_inactive_regions },
  }
  if vim.lsp.start then
    return vim.lsp.start(conf, { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or not vim.lsp.get_client_by_id(id) then
    id = vim.lsp.start_client(conf)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

local function client()
  for _, c in pairs(vim.lsp.get_active_clients()) do
    if c.name == 'sycl-analyzer' then
      return c
    end
  end
  return nil
end

-- A scratch buffer in a split, filled with `lines`.
local function show(title, lines)
  vim.cmd('botright new')
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = 'nofile'
  vim.bo[buf].bufhidden = 'wipe'
  vim.api.nvim_buf_set_name(buf, title)
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
end

local function request(method, params, on_result)
  local c = client()
  if not c then
    vim.notify('sycl-analyzer is not running for this buffer', vim.log.levels.WARN)
    return
  end
  c.request(method, params, function(err, result)
    if err then
      vim.notify('sycl-analyzer: ' .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
      return
    end
    on_result(result)
  end)
end

-- :SyclMacros [targets]: the macros the compiler predefines.
function M.show_macros(targets)
  local t = targets
  if t == nil or t == '' then
    t = M.init_options().targets
  end
  -- Without targets, the server answers for the project's (vim.empty_dict(): an empty table
  -- would be sent as a JSON array).
  local params = t and { targets = t } or vim.empty_dict()
  request('sycl/predefinedMacros', params, function(result)
    local lines = { '// -fsycl-targets=' .. table.concat(result.targets, ',') }
    for name, value in pairs(result.macros) do
      table.insert(lines, '#define ' .. name .. ' ' .. value)
    end
    table.sort(lines, function(a, b)
      return a:sub(1, 2) == '//' or (b:sub(1, 2) ~= '//' and a < b)
    end)
    show('sycl-analyzer://macros', lines)
  end)
end

-- :SyclTargets: the device table.
function M.show_targets()
  request('sycl/listTargets', vim.empty_dict(), function(result)
    local lines = {}
    for _, t in ipairs(result) do
      local sg = table.concat(vim.tbl_map(tostring, t.sub_group_sizes), ',')
      table.insert(lines, string.format('%-22s %3d aspects  %s  sub-groups [%s]  %s', t.name, #t.aspects,
        t.may_support_other_aspects and 'may have more' or 'exactly      ', sg, t.source))
    end
    show('sycl-analyzer://targets', lines)
  end)
end

-- :SyclKernelMatrix: which kernel runs on which target, and why not (also the command of the
-- code lens above each kernel).
function M.show_kernel_matrix()
  request('sycl/kernelMatrix', { format = 'markdown' }, function(result)
    show('sycl-analyzer://kernel-matrix', vim.split(result.markdown, '\n', { plain = true }))
    vim.bo.filetype = 'markdown'
  end)
end

vim.lsp.commands['sycl-analyzer.showKernelMatrix'] = function()
  M.show_kernel_matrix()
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend('force', M.config, opts or {})
  local group = vim.api.nvim_create_augroup('sycl_analyzer', { clear = true })
  set_highlights()
  vim.api.nvim_create_autocmd('ColorScheme', { group = group, callback = set_highlights })
  local filetypes = vim.list_extend(vim.deepcopy(M.config.filetypes), { 'yaml' })
  vim.api.nvim_create_autocmd('FileType', {
    group = group,
    pattern = filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Code lenses (where each kernel runs) follow the analysis: asked again when the text settles.
  vim.api.nvim_create_autocmd({ 'BufEnter', 'InsertLeave', 'BufWritePost', 'CursorHold' }, {
    group = group,
    callback = function(args)
      if client() and vim.tbl_contains(M.config.filetypes, vim.bo[args.buf].filetype) then
        pcall(vim.lsp.codelens.refresh)
      end
    end,
  })
  -- Buffers already open when setup runs.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

return M
