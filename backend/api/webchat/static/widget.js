/* Pergola web chat widget, shared by the hosted page (/chat/{id}) and the
 * embed bubble (/embed.js). Plain JavaScript, no dependencies: it renders
 * into a shadow root so the host page's CSS cannot reach it, and builds
 * every node from text, except bot answers, which go through the small
 * Markdown renderer of markdown.js (it escapes all HTML first). The server
 * joins markdown.js, client.js and this file into one script (see
 * assets.go) and puts widget.css where CSS is. */

var CSS = "__PERGOLA_CSS__";

function View(box, opts) {
  this.opts = opts;
  box.textContent = '';
  box.appendChild(el('style', null, CSS));
  var root = this.root = el('div', 'pc-root');
  root.setAttribute('role', 'region');
  root.setAttribute('aria-label', 'Chat');
  var header = el('div', 'pc-header');
  this.icon = el('img', 'pc-icon');
  this.icon.alt = '';
  this.icon.hidden = true;
  this.title = el('div', 'pc-title', opts.botName || 'Chat');
  this.reset = el('button', 'pc-btn pc-new', 'New chat');
  this.reset.type = 'button';
  header.appendChild(this.icon);
  header.appendChild(this.title);
  header.appendChild(this.reset);
  if (opts.onClose) {
    this.close = el('button', 'pc-btn pc-close', '\u00d7');
    this.close.type = 'button';
    this.close.setAttribute('aria-label', 'Close chat');
    header.appendChild(this.close);
  }
  this.log = el('div', 'pc-log');
  this.log.setAttribute('aria-live', 'polite');
  this.error = el('div', 'pc-error');
  this.error.setAttribute('role', 'alert');
  this.error.hidden = true;
  var composer = el('div', 'pc-composer');
  this.input = el('textarea', 'pc-input');
  this.input.rows = 1;
  this.input.placeholder = 'Type a message\u2026';
  this.input.setAttribute('aria-label', 'Message');
  this.send = el('button', 'pc-send', 'Send');
  this.send.type = 'button';
  composer.appendChild(this.input);
  composer.appendChild(this.send);
  [header, this.log, this.error, composer].forEach(function (n) { root.appendChild(n); });
  box.appendChild(root);
  this.setIcon(opts.iconUrl);
}

View.prototype.setIcon = function (url) {
  if (url && /^https?:\/\//i.test(url)) {
    this.icon.src = url;
    this.icon.hidden = false;
  }
};

View.prototype.scroll = function () { this.log.scrollTop = this.log.scrollHeight; };

View.prototype.user = function (text) {
  this.log.appendChild(el('div', 'pc-msg pc-user', text));
  this.scroll();
};

View.prototype.bot = function (markdown, cls) {
  var b = el('div', 'pc-msg ' + (cls || 'pc-bot'));
  b.innerHTML = renderMarkdown(markdown);
  this.log.appendChild(b);
  this.scroll();
  return b;
};

View.prototype.chips = function (questions, onPick) {
  if (!questions || !questions.length) return;
  var row = el('div', 'pc-suggest');
  questions.forEach(function (q) {
    var chip = el('button', 'pc-chip', q);
    chip.type = 'button';
    chip.addEventListener('click', function () { onPick(q); });
    row.appendChild(chip);
  });
  this.log.appendChild(row);
  this.scroll();
};

View.prototype.dropChips = function () {
  var rows = this.log.querySelectorAll('.pc-suggest');
  for (var i = 0; i < rows.length; i++) rows[i].remove();
};

View.prototype.showError = function (msg) {
  this.error.textContent = msg;
  this.error.hidden = !msg;
};

View.prototype.busy = function (on) {
  this.input.disabled = on;
  this.send.disabled = on;
  this.reset.disabled = on;
  var chips = this.log.querySelectorAll('.pc-chip');
  for (var i = 0; i < chips.length; i++) chips[i].disabled = on;
};

function Widget(box, opts) {
  this.client = new Client(opts);
  this.view = new View(box, opts);
  this.config = null;
  this.answering = false;
  this.ready = false;
  this.bind();
  this.start();
}

Widget.prototype.bind = function () {
  var self = this, v = this.view;
  v.send.addEventListener('click', function () { self.submit(); });
  v.input.addEventListener('keydown', function (e) {
    if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      self.submit();
    }
  });
  v.input.addEventListener('input', function () {
    v.input.style.height = 'auto';
    v.input.style.height = Math.min(v.input.scrollHeight, 140) + 'px';
  });
  v.reset.addEventListener('click', function () { self.newChat(); });
  if (v.close) v.close.addEventListener('click', function () { self.view.opts.onClose(); });
};

// start loads the page's configuration, the end user and the history.
Widget.prototype.start = function () {
  var self = this, v = this.view, c = this.client;
  self.ready = false;
  v.busy(true);
  v.showError('');
  return c.request('GET', '/config').then(function (cfg) {
    self.config = cfg;
    v.title.textContent = cfg.bot_name || cfg.channel_name || 'Chat';
    v.setIcon(cfg.icon_url);
    return c.call('GET', '/messages');
  }).then(function (h) {
    v.log.textContent = '';
    if (!h.messages.length) self.welcome();
    h.messages.forEach(function (m) {
      if (m.role === 'user') v.user(m.content); else v.bot(m.content);
    });
    self.ready = true;
    v.busy(false);
  }).catch(function (e) {
    v.showError(e.message);
    v.input.disabled = true;
    v.send.disabled = true;
  });
};

// welcome shows the prologue and the suggested questions of an empty
// conversation.
Widget.prototype.welcome = function () {
  var self = this, cfg = this.config || {};
  if (cfg.prologue) this.view.bot(cfg.prologue, 'pc-prologue');
  this.view.chips(cfg.suggested_questions, function (q) { self.ask(q); });
};

Widget.prototype.submit = function () {
  var text = this.view.input.value;
  if (!text.trim() || this.answering || !this.ready) return;
  this.view.input.value = '';
  this.view.input.style.height = 'auto';
  this.ask(text);
};

// ask sends a message and shows the answer as it streams.
Widget.prototype.ask = function (text) {
  var self = this, v = this.view;
  if (self.answering || !self.ready) return;
  self.answering = true;
  v.busy(true);
  v.showError('');
  v.dropChips();
  v.user(text);
  var bubble = v.bot('', 'pc-bot pc-pending'), answer = '', ended = false;
  var body = { text: text, message_id: newID() };
  self.client.call('POST', '/messages', body, true).then(function (resp) {
    return readStream(resp, function (name, data) {
      if (name === 'delta') {
        answer += data.text;
        bubble.innerHTML = renderMarkdown(answer);
        v.scroll();
      } else if (name === 'follow_up') {
        v.chips([data.text], function (q) { self.ask(q); });
      } else if (name === 'done') {
        ended = true;
        bubble.innerHTML = renderMarkdown(data.answer || answer);
      } else if (name === 'error') {
        ended = true;
        throw new ApiError(0, data.msg);
      }
    });
  }).then(function () {
    if (!ended) throw new ApiError(0, 'The answer was cut off. Reload the page to see it.');
  }).catch(function (e) {
    if (!answer) bubble.remove();
    v.showError(e.message || UNREACHABLE);
  }).then(function () {
    bubble.classList.remove('pc-pending');
    self.answering = false;
    v.busy(false);
    v.input.focus();
  });
};

// newChat starts a new conversation.
Widget.prototype.newChat = function () {
  var self = this, v = this.view;
  if (self.answering) return;
  v.busy(true);
  self.client.call('POST', '/reset').then(function () {
    v.log.textContent = '';
    v.showError('');
    self.welcome();
  }).catch(function (e) { v.showError(e.message); }).then(function () { v.busy(false); });
};

function mount(box, opts) {
  var w = new Widget(box, opts || {});
  return {
    focus: function () { w.view.input.focus(); },
    setUserToken: function (token) {
      w.client.userToken = token || null;
      w.client.token = null;
      return w.start();
    }
  };
}

window.PergolaWidget = { mount: mount, renderMarkdown: renderMarkdown };

// The hosted page marks its host element with data-pergola-page.
function mountPage() {
  var host = document.querySelector('[data-pergola-page]');
  if (!host || host.shadowRoot) return;
  var box = el('div');
  box.style.height = '100%';
  host.attachShadow({ mode: 'open' }).appendChild(box);
  mount(box, {
    base: '', channel: host.getAttribute('data-channel'),
    botName: host.getAttribute('data-bot-name'), iconUrl: host.getAttribute('data-icon-url')
  });
}
if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', mountPage);
else mountPage();
