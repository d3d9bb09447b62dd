-- docver for Neovim (0.7 or later): a client of `docver serve` (docs/PROTOCOL.md).
--
-- :DocverConflicts                 the documents in conflict, in the quickfix list: one entry
--                                  per conflict version, with its device and date
-- :DocverVersions                  the current buffer's document's versions, in a split
-- :DocverDiff {version}            a diff split of the buffer against that version
-- :DocverResolve {latest-date|merge|choose} [version]
--                                  resolves the current buffer's document
--
-- The server pushes changes: buffers of documents another device (or process) changed are
-- reloaded when they have no unsaved edits, and the quickfix list of conflicts follows the
-- conflicts as they appear and are resolved.

local M = {}

M.config = { docver = 'docver' }

local server = nil -- { job, root, next_id, pending = {id = callback}, partial }

local function notify(message, level)
  vim.notify('docver: ' .. message, level or vim.log.levels.INFO)
end

local function encode(value)
  return vim.fn.json_encode(value)
end

local function short(id)
  return type(id) == 'string' and id:sub(1, 12) or ''
end

-- The document of a buffer: its path relative to the container's root, or nil.
local function document_of(buffer)
  if not server or not server.root then return nil end
  local path = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buffer or 0), ':p')
  local prefix = server.root .. '/'
  if path:sub(1, #prefix) ~= prefix then return nil end
  return path:sub(#prefix + 1)
end

local function buffer_of(document)
  local path = server.root .. '/' .. document
  for _, buffer in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buffer) and vim.fn.fnamemodify(vim.api.nvim_buf_get_name(buffer), ':p') == path then
      return buffer
    end
  end
  return nil
end

local handlers = {}

local function handle(line)
  if line == '' then return end
  local ok, message = pcall(vim.fn.json_decode, line)
  if not ok or type(message) ~= 'table' then return end
  if message.method then
    local handler = handlers[message.method]
    if handler then handler(message.params) end
    return
  end
  local callback = server and server.pending[message.id]
  if callback then
    server.pending[message.id] = nil
    if message.error ~= nil and message.error ~= vim.NIL then
      callback(nil, message.error)
    else
      callback(message.result, nil)
    end
  end
end

-- Sends a request; `callback(result, error)` runs when the answer arrives.
function M.request(method, params, callback)
  if not server then M.start() end
  local id = server.next_id
  server.next_id = id + 1
  server.pending[id] = callback or function() end
  local message = { jsonrpc = '2.0', id = id, method = method }
  if params then message.params = params end
  vim.fn.chansend(server.job, encode(message) .. '\n')
  return id
end

-- The error's text: docver's message and hint when it refused the operation.
local function describe(error)
  local data = error.data
  if type(data) == 'table' then
    return data.message .. ((type(data.hint) == 'string') and (' (' .. data.hint .. ')') or '')
  end
  return error.message
end

-- Starts `docver serve` for the container of `directory` (default: the current buffer's
-- folder, else the working directory).
function M.start(directory)
  if server then return end
  directory = directory or vim.fn.expand('%:p:h')
  if directory == '' then directory = vim.fn.getcwd() end
  server = { next_id = 1, pending = {}, partial = '' }
  server.job = vim.fn.jobstart({ M.config.docver, '-C', directory, 'serve' }, {
    on_stdout = function(_, data)
      -- Chunks, not lines: the first piece continues the last partial line.
      data[1] = server.partial .. data[1]
      server.partial = table.remove(data)
      for _, line in ipairs(data) do handle(line) end
    end,
    on_stderr = function(_, data)
      local text = table.concat(data, '\n')
      if text:match('%S') then notify(text, vim.log.levels.WARN) end
    end,
    on_exit = function() server = nil end,
  })
  M.request('initialize', { clientName = 'docver.nvim', protocolVersion = '1.0' }, function(result, error)
    if error then return notify(describe(error), vim.log.levels.ERROR) end
    server.root = result.container
    server.initialized = true
  end)
end

function M.stop()
  if server then M.request('shutdown') end
end

-- True once the server has answered `initialize` (notifications flow from then on).
function M.ready()
  return server ~= nil and server.initialized == true
end

-- :DocverConflicts: the quickfix list, one entry per conflict version.
local quickfix_title = 'docver conflicts'

-- Fills the quickfix list: the docver list when it is the current one (`replace`), else a
-- new one; opens its window when asked (the command, not a notification).
local function fill_quickfix(conflicts, open)
  local items = {}
  for _, conflict in ipairs(conflicts) do
    for _, version in ipairs(conflict.conflicts) do
      table.insert(items, {
        filename = server.root .. '/' .. conflict.document,
        lnum = 1,
        text = string.format('conflict %s from %s, %s (current: %s from %s)', short(version.id), version.deviceName,
          version.modified, short(conflict.current.id), conflict.current.deviceName),
      })
    end
  end
  local ours = vim.fn.getqflist({ title = 0 }).title == quickfix_title
  vim.fn.setqflist({}, ours and 'r' or ' ', { title = quickfix_title, items = items })
  if open then vim.cmd('copen') end
end

function M.conflicts(open)
  M.request('conflicts', nil, function(result, error)
    if error then return notify(describe(error), vim.log.levels.ERROR) end
    fill_quickfix(result, open)
  end)
end

handlers.conflictAppeared = function(params)
  notify(params.document .. ' is in conflict: :DocverConflicts lists the versions', vim.log.levels.WARN)
  M.conflicts(false)
end

handlers.conflictResolved = function()
  -- Only a list the user asked for is kept up to date once conflicts close.
  if vim.fn.getqflist({ title = 0 }).title == quickfix_title then M.conflicts(false) end
end

handlers.documentChanged = function(params)
  if not server.root then return end
  for _, change in ipairs(params.documents) do
    local buffer = buffer_of(change.document)
    -- A buffer with unsaved edits is left alone: reloading would lose them.
    if buffer and not vim.api.nvim_buf_get_option(buffer, 'modified') then
      vim.api.nvim_buf_call(buffer, function() vim.cmd('silent! edit!') end)
    end
  end
end

local function current_document()
  local document = document_of(0)
  if not document then notify('this buffer is not a document of the container', vim.log.levels.ERROR) end
  return document
end

-- A scratch split holding `lines`.
local function scratch(lines, filetype)
  vim.cmd('new')
  local buffer = vim.api.nvim_get_current_buf()
  vim.api.nvim_buf_set_option(buffer, 'buftype', 'nofile')
  vim.api.nvim_buf_set_option(buffer, 'bufhidden', 'wipe')
  vim.api.nvim_buf_set_lines(buffer, 0, -1, false, lines)
  if filetype then vim.api.nvim_buf_set_option(buffer, 'filetype', filetype) end
  vim.api.nvim_buf_set_option(buffer, 'modifiable', false)
  return buffer
end

function M.versions()
  local document = current_document()
  if not document then return end
  M.request('versions', { document = document, all = true }, function(result, error)
    if error then return notify(describe(error), vim.log.levels.ERROR) end
    local lines = { 'versions of ' .. document }
    local function add(role, version)
      table.insert(lines, string.format('%-9s %s  %s  %s', role, short(version.id), version.modified, version.deviceName))
    end
    if result.current ~= vim.NIL then add('current', result.current) end
    for _, version in ipairs(result.conflicts) do add(version.resolved and 'resolved' or 'conflict', version) end
    for _, version in ipairs(result.history) do add('history', version) end
    scratch(lines)
  end)
end

function M.diff(version)
  local document = current_document()
  if not document then return end
  local buffer = vim.api.nvim_get_current_buf()
  M.request('show', { document = document, version = version }, function(result, error)
    if error then return notify(describe(error), vim.log.levels.ERROR) end
    if result.text == vim.NIL then return notify('version ' .. version .. ' is not text', vim.log.levels.ERROR) end
    local lines = vim.split(result.text, '\n', { plain = true })
    if lines[#lines] == '' then table.remove(lines) end
    vim.api.nvim_win_call(vim.fn.bufwinid(buffer), function() vim.cmd('diffthis') end)
    scratch(lines, vim.api.nvim_buf_get_option(buffer, 'filetype'))
    vim.cmd('diffthis')
  end)
end

function M.resolve(strategy, version)
  local document = current_document()
  if not document then return end
  if vim.api.nvim_buf_get_option(0, 'modified') then vim.cmd('write') end
  local params = { document = document, strategy = strategy }
  if version then params.keep = version end
  M.request('resolve', params, function(result, error)
    if error then return notify(describe(error), vim.log.levels.ERROR) end
    notify(string.format('%s: %s%s', document, result.outcome,
      result.version ~= vim.NIL and result.version and (' ' .. short(result.version)) or ''))
  end)
end

function M.setup(options)
  M.config = vim.tbl_extend('force', M.config, options or {})
  vim.api.nvim_create_user_command('DocverConflicts', function() M.conflicts(true) end, {})
  vim.api.nvim_create_user_command('DocverVersions', function() M.versions() end, {})
  vim.api.nvim_create_user_command('DocverDiff', function(command) M.diff(command.args) end, { nargs = 1 })
  vim.api.nvim_create_user_command('DocverResolve', function(command)
    M.resolve(command.fargs[1], command.fargs[2])
  end, {
    nargs = '+',
    complete = function() return { 'latest-date', 'merge', 'choose' } end,
  })
  vim.api.nvim_create_autocmd('VimLeavePre', { callback = function() M.stop() end })
end

return M
