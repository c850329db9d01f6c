/* Pergola embed bubble. On any site:
 *   <script src="https://pergola.example.com/embed.js" data-channel="123" async></script>
 * Optional: data-user-token="<JWT signed with the channel's end_user_secret>",
 * data-token-url="/path/on/your/site" (answers {"token": "..."}; fetched with
 * cookies, again when the token expires), data-open="true".
 * window.PergolaChat = {open, close, setUserToken}. */
(function () {
  'use strict';
  if (window.PergolaChat || !window.PergolaWidget) return;

  var BUBBLE_CSS = [
    '.pcb-bubble { position: fixed; right: 20px; bottom: 20px; width: 56px; height: 56px; padding: 0; border: none;',
    '  border-radius: 50%; background: #3370ff; color: #fff; cursor: pointer; display: flex; align-items: center;',
    '  justify-content: center; box-shadow: 0 4px 14px rgba(0,0,0,.25); z-index: 2147483000; }',
    '.pcb-bubble:focus-visible { outline: 3px solid #9bb8ff; }',
    '.pcb-panel { position: fixed; right: 20px; bottom: 88px; width: 380px; height: min(640px, calc(100vh - 120px));',
    '  border-radius: 14px; overflow: hidden; background: #fff; box-shadow: 0 8px 30px rgba(0,0,0,.2); z-index: 2147483000; }',
    '.pcb-panel[hidden] { display: none; }',
    '@media (max-width: 480px) { .pcb-panel { right: 0; bottom: 0; width: 100%; height: 100%; border-radius: 0; } }'
  ].join('\n');

  var CHAT_ICON = '<svg width="26" height="26" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" ' +
    'stroke-linecap="round" stroke-linejoin="round" aria-hidden="true"><path d="M21 15a2 2 0 0 1-2 2H7l-4 4V5a2 2 0 0 1 2-2h14a2 2 0 0 1 2 2z"/></svg>';

  function findScript() {
    var s = document.currentScript;
    if (s && s.getAttribute('data-channel')) return s;
    var all = document.querySelectorAll('script[data-channel]');
    for (var i = 0; i < all.length; i++) {
      if (/\/embed\.js([?#].*)?$/.test(all[i].src)) return all[i];
    }
    return null;
  }

  var script = findScript();
  if (!script) {
    console.error('Pergola chat: add data-channel="<channel id>" to the <script src=".../embed.js"> tag');
    return;
  }
  var opts = {
    base: script.src.replace(/\/embed\.js([?#].*)?$/, ''),
    channel: script.getAttribute('data-channel'),
    userToken: script.getAttribute('data-user-token') || null,
    tokenUrl: script.getAttribute('data-token-url') || null
  };
  var host, panel, bubble, widget = null, opened = false;

  function build() {
    host = document.createElement('div');
    host.id = 'pergola-chat-bubble';
    host.style.cssText = 'all: initial;';
    var root = host.attachShadow({ mode: 'open' });
    var style = document.createElement('style');
    style.textContent = BUBBLE_CSS;
    root.appendChild(style);
    panel = document.createElement('div');
    panel.className = 'pcb-panel';
    panel.hidden = true;
    root.appendChild(panel);
    bubble = document.createElement('button');
    bubble.type = 'button';
    bubble.className = 'pcb-bubble';
    bubble.setAttribute('aria-label', 'Open chat');
    bubble.setAttribute('aria-expanded', 'false');
    bubble.innerHTML = CHAT_ICON;
    bubble.addEventListener('click', function () { if (opened) close(); else open(); });
    root.appendChild(bubble);
    document.body.appendChild(host);
  }

  function open() {
    if (!host) build();
    panel.hidden = false;
    opened = true;
    bubble.setAttribute('aria-expanded', 'true');
    bubble.setAttribute('aria-label', 'Close chat');
    if (!widget) {
      opts.onClose = close;
      widget = window.PergolaWidget.mount(panel, opts);
    }
    widget.focus();
  }

  function close() {
    if (!host) return;
    panel.hidden = true;
    opened = false;
    bubble.setAttribute('aria-expanded', 'false');
    bubble.setAttribute('aria-label', 'Open chat');
  }

  function setUserToken(token) {
    opts.userToken = token || null;
    if (widget) return widget.setUserToken(token);
  }

  window.PergolaChat = { open: open, close: close, setUserToken: setUserToken };

  function init() {
    if (!host) build();
    if (script.getAttribute('data-open') === 'true') open();
  }
  if (document.body) init();
  else document.addEventListener('DOMContentLoaded', init);
})();
