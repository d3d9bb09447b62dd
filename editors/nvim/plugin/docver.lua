-- Loads docver.nvim with the settings in `vim.g.docver` (e.g. { docver = '/path/to/docver' }).
if vim.g.loaded_docver then return end
vim.g.loaded_docver = true
require('docver').setup(vim.g.docver or {})
