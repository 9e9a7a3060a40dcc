// msgpackr treats a falsy export as 'no native accelerator' and uses its pure-JS path.
module.exports = null;
