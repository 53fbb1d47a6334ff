#!/usr/bin/env node
// Docs: https://example.com/docs/js
const base = "https://api.example.com/v1/";
const html = '<a href=\"https://x.example/a\">';
const tpl = `http://${host}:${port}/path`;
const re = /"https?:\/\/[^"]+"/g; // a regex, not a string: http://regex.example/
const ratio = a / b, other = "http://after.example/";
const data = JSON.parse('{"u":"https:\\/\\/json.example\\/p"}');
/* block https://block.example/b */
let s = "it's" + 'http://single.example/q';
location.href = http://bare.code.example/x;
const multi = `line one
https://template.example/t\u0041`;
