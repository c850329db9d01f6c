/* Part of the Pergola web chat widget (see assets.go): Markdown, safely. */

// Escape first, then add known tags.

var ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

function esc(s) {
  return String(s).replace(/[&<>"']/g, function (c) { return ESCAPES[c]; });
}

// inline renders code spans, http(s) links, bold and italic in text that
// is already escaped. Code spans and links are set aside first so that
// nothing inside them is read as emphasis.
function inline(s) {
  var kept = [];
  function keep(html) { kept.push(html); return '\u0000' + (kept.length - 1) + '\u0000'; }
  s = s.replace(/`([^`\n]+)`/g, function (_, code) { return keep('<code>' + code + '</code>'); });
  s = s.replace(/\[([^\]\n]+)\]\((https?:\/\/[^\s)]+)\)/g, function (_, text, url) {
    return keep('<a href="' + url + '" target="_blank" rel="noopener noreferrer">' + text + '</a>');
  });
  s = s.replace(/\*\*([^*\n]+)\*\*/g, '<strong>$1</strong>').replace(/__([^_\n]+)__/g, '<strong>$1</strong>');
  s = s.replace(/(^|[^*\w])\*([^*\s][^*\n]*?)\*(?![*\w])/g, '$1<em>$2</em>');
  s = s.replace(/(^|[^_\w])_([^_\s][^_\n]*?)_(?![_\w])/g, '$1<em>$2</em>');
  return s.replace(/\u0000(\d+)\u0000/g, function (_, i) { return kept[+i]; });
}

// renderMarkdown turns an answer into HTML: paragraphs, line breaks,
// fenced code, bullet and numbered lists, headings (as bold lines) and
// the inline marks above. Anything else stays text.
function renderMarkdown(src) {
  var lines = esc(String(src).replace(/\u0000/g, '').replace(/\r\n?/g, '\n')).split('\n');
  var out = [], para = [], list = null;
  function flushPara() {
    if (para.length) out.push('<p>' + para.map(inline).join('<br>') + '</p>');
    para = [];
  }
  function flushList() {
    if (list) out.push('<' + list.tag + '>' + list.items.map(function (x) { return '<li>' + inline(x) + '</li>'; }).join('') + '</' + list.tag + '>');
    list = null;
  }
  for (var i = 0; i < lines.length; i++) {
    var line = lines[i], m;
    if (/^\s*```/.test(line)) {
      flushPara(); flushList();
      var code = [];
      for (i++; i < lines.length && !/^\s*```/.test(lines[i]); i++) code.push(lines[i]);
      out.push('<pre><code>' + code.join('\n') + '</code></pre>');
    } else if (/^\s*$/.test(line)) {
      flushPara(); flushList();
    } else if ((m = /^\s{0,3}#{1,6}\s+(.*)$/.exec(line))) {
      flushPara(); flushList();
      out.push('<p><strong>' + inline(m[1]) + '</strong></p>');
    } else if ((m = /^\s*(?:([-*+])|\d+[.)])\s+(.*)$/.exec(line))) {
      var tag = m[1] ? 'ul' : 'ol';
      flushPara();
      if (list && list.tag !== tag) flushList();
      if (!list) list = { tag: tag, items: [] };
      list.items.push(m[2]);
    } else {
      flushList();
      para.push(line);
    }
  }
  flushPara(); flushList();
  return out.join('');
}
