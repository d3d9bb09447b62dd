-- A headless test of docver.nvim against a real `docver serve` (run by NeovimPluginTests):
--   DOCVER=/path/to/docver DOCVER_TEST_CONTAINER=/path/to/alice \
--     nvim --headless -u NONE -i NONE --cmd 'set rtp+=editors/nvim' -c 'luafile editors/nvim/tests/conflicts_test.lua'
-- The container has notes.txt saved as "alice"; Bob's device has saved "bob" later and
-- pushed: Alice's next sync brings the conflict. Exits 0 when every step held, 1 otherwise.

local docver_binary = os.getenv('DOCVER')
local container = os.getenv('DOCVER_TEST_CONTAINER')

local function fail(what)
  io.stderr:write('FAILED: ' .. what .. '\n')
  vim.cmd('cquit 1')
end

local function check(condition, what)
  if not condition then fail(what) end
end

-- A handshake, not a sleep: polls the condition while the event loop runs (the bound only
-- catches a hang).
local function wait(what, condition)
  if not vim.wait(120000, condition, 10) then fail('timed out waiting for ' .. what) end
end

local function step(name) io.stdout:write(name .. '\n') end

local docver = require('docver')
docver.setup({ docver = docver_binary })
vim.cmd('edit ' .. container .. '/notes.txt')
local notes = vim.api.nvim_get_current_buf()
check(vim.api.nvim_buf_get_lines(notes, 0, -1, false)[1] == 'alice', 'notes.txt opens as alice')
docver.start()
wait('initialize', docver.ready)
step('ready')

-- Another process syncs Alice's container: the conflict arrives as a notification, which
-- fills the quickfix list and reloads the buffer with the current version (Bob's, newer).
local output = vim.fn.system({ docver_binary, '-C', container, 'sync' })
check(vim.v.shell_error == 0, 'docver sync: ' .. output)
wait('the quickfix list of conflicts', function()
  local list = vim.fn.getqflist({ title = 0, size = 0 })
  return list.title == 'docver conflicts' and list.size == 1
end)
local item = vim.fn.getqflist()[1]
check(item.text:match('^conflict %x+ from alice, %d%d%d%d%-%d%d%-%d%dT') ~= nil, 'the entry names the version, device and date: ' .. item.text)
check(vim.api.nvim_buf_get_name(item.bufnr) == container .. '/notes.txt', 'the entry is notes.txt')
wait('the buffer to reload', function() return vim.api.nvim_buf_get_lines(notes, 0, -1, false)[1] == 'bob' end)
step('conflict listed and buffer reloaded')

-- :DocverConflicts opens the list; :DocverVersions lists the versions in a split.
vim.cmd('DocverConflicts')
wait('the quickfix window', function() return vim.fn.getqflist({ winid = 0 }).winid ~= 0 end)
vim.cmd('cclose')
vim.api.nvim_set_current_buf(notes)
vim.cmd('DocverVersions')
wait('the versions split', function()
  return vim.api.nvim_buf_get_lines(0, 0, 1, false)[1] == 'versions of notes.txt'
end)
local listing = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), '\n')
check(listing:match('\ncurrent ') and listing:match('\nconflict '), 'the versions: ' .. listing)
vim.cmd('close')
step('versions listed')

-- :DocverDiff against the conflict version: two windows in diff mode.
local loser = item.text:match('^conflict (%x+)')
vim.api.nvim_set_current_buf(notes)
vim.cmd('DocverDiff ' .. loser)
wait('the diff split', function()
  local diffing = 0
  for _, window in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_option(window, 'diff') then diffing = diffing + 1 end
  end
  return diffing == 2
end)
check(vim.api.nvim_buf_get_lines(0, 0, -1, false)[1] == 'alice', 'the diff shows the conflict version')
vim.cmd('close')
vim.cmd('diffoff!')
step('diff shown')

-- :DocverResolve keeps the conflict version; the list empties and the buffer follows.
vim.api.nvim_set_current_buf(notes)
vim.cmd('DocverResolve choose ' .. loser)
wait('the conflict to close', function() return vim.fn.getqflist({ size = 0 }).size == 0 end)
wait('the buffer to reload', function() return vim.api.nvim_buf_get_lines(notes, 0, -1, false)[1] == 'alice' end)
step('resolved')
step('passed')
vim.cmd('qall!')
