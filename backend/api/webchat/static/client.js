/* Part of the Pergola web chat widget (see assets.go): helpers, the API
 * client of one channel and the answer stream reader. */

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = text;
  return e;
}

function newID() {
  if (window.crypto && crypto.randomUUID) return crypto.randomUUID();
  return Date.now().toString(36) + '-' + Math.random().toString(36).slice(2, 12);
}

function ApiError(status, msg) {
  this.status = status;
  this.message = msg;
}
ApiError.prototype = Object.create(Error.prototype);

var UNREACHABLE = 'Could not reach the chat server. Check your connection; if it persists, this site may not be allowed to use this chat.';

// envelopeError reads a failed JSON answer of the API.
function envelopeError(resp) {
  return resp.json().then(function (body) {
    return new ApiError(resp.status, (body && body.msg) || ('The chat server answered ' + resp.status + '.'));
  }, function () {
    return new ApiError(resp.status, 'The chat server answered ' + resp.status + '.');
  });
}

/* ---------- the API client of one channel ---------- */

function Client(opts) {
  this.api = (opts.base || '') + '/chat/' + encodeURIComponent(String(opts.channel || ''));
  this.storeKey = 'pergola-chat:' + (opts.base || location.origin) + ':' + opts.channel;
  this.userToken = opts.userToken || null;
  this.tokenUrl = opts.tokenUrl || null;
  this.token = null;
}

Client.prototype.identified = function () { return !!(this.userToken || this.tokenUrl); };

Client.prototype.request = function (method, path, body, token, stream) {
  var headers = {};
  if (token) headers.Authorization = 'Bearer ' + token;
  if (body) headers['Content-Type'] = 'application/json';
  if (stream) headers.Accept = 'text/event-stream';
  return fetch(this.api + path, { method: method, headers: headers, body: body ? JSON.stringify(body) : undefined })
    .catch(function () { throw new ApiError(0, UNREACHABLE); })
    .then(function (resp) {
      var type = resp.headers.get('Content-Type') || '';
      if (stream && resp.ok && type.indexOf('text/event-stream') === 0) return resp;
      if (!resp.ok) return envelopeError(resp).then(function (e) { throw e; });
      return resp.json().then(function (b) {
        if (b.code !== 0) throw new ApiError(resp.status, b.msg);
        return b.data;
      });
    });
};

Client.prototype.load = function () {
  try { return localStorage.getItem(this.storeKey); } catch (e) { return null; }
};

Client.prototype.save = function (token) {
  try { localStorage.setItem(this.storeKey, token); } catch (e) { /* storage off: the session lasts the page */ }
};

// siteToken returns the site's token for its user, fetching it from
// data-token-url (with the site's cookies) when there is none or force.
Client.prototype.siteToken = function (force) {
  var self = this;
  if (!self.tokenUrl || (self.userToken && !force)) return Promise.resolve(self.userToken);
  return fetch(self.tokenUrl, { credentials: 'include' }).then(function (resp) {
    if (!resp.ok) throw new ApiError(0, 'This site could not sign you in to the chat (' + resp.status + ' from its token URL).');
    return resp.json();
  }).then(function (b) {
    if (!b || typeof b.token !== 'string') throw new ApiError(0, 'The site\'s token URL must answer {"token": "..."}.');
    self.userToken = b.token;
    return b.token;
  });
};

// session finds the end user: the site's user, or the browser's
// anonymous one (renewed; a new one when it was refused).
Client.prototype.session = function (force) {
  var self = this;
  if (self.identified()) {
    return self.siteToken(force).then(function (t) {
      return self.request('POST', '/session', null, t).then(function (s) { self.token = s.token; return s; });
    });
  }
  var saved = force ? null : self.load();
  var fresh = function () { return self.request('POST', '/session', null, null); };
  var first = saved ? self.request('POST', '/session', null, saved).catch(function (e) {
    if (e.status === 401) return fresh();
    throw e;
  }) : fresh();
  return first.then(function (s) { self.token = s.token; self.save(s.token); return s; });
};

// call sends an authenticated request, starting the session again once
// when the token was refused (expired, renewed elsewhere).
Client.prototype.call = function (method, path, body, stream) {
  var self = this;
  var ready = self.token ? Promise.resolve() : self.session(false);
  return ready.then(function () {
    return self.request(method, path, body, self.token, stream);
  }).catch(function (e) {
    if (e.status !== 401) throw e;
    return self.session(true).then(function () { return self.request(method, path, body, self.token, stream); });
  });
};

/* ---------- reading the answer stream ---------- */

// readStream calls on(name, data) for each event of an SSE response and
// resolves when the stream ends.
function readStream(resp, on) {
  var reader = resp.body.getReader(), decoder = new TextDecoder(), buf = '';
  function block(text) {
    var name = 'message', data = [];
    text.split('\n').forEach(function (line) {
      if (line.indexOf('event:') === 0) name = line.slice(6).trim();
      else if (line.indexOf('data:') === 0) data.push(line.slice(5).replace(/^ /, ''));
    });
    if (data.length) on(name, JSON.parse(data.join('\n')));
  }
  function pump() {
    return reader.read().then(function (r) {
      if (r.done) return;
      buf = (buf + decoder.decode(r.value, { stream: true })).replace(/\r\n?/g, '\n');
      var i;
      while ((i = buf.indexOf('\n\n')) >= 0) {
        block(buf.slice(0, i));
        buf = buf.slice(i + 2);
      }
      return pump();
    });
  }
  return pump();
}
