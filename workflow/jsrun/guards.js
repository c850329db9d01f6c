// Guards run in every VM before the code. The built-ins below build a large
// block in one Go call, which no watchdog can interrupt midway, and their
// result can be far larger than what the code already holds; each one
// refuses a result beyond the memory limit (max, in bytes) before building
// it. Sizes count two bytes per character and sixteen per array slot.
(function (max) {
  "use strict";
  var global = globalThis;
  function tooBig(what) { throw new RangeError(what + " would exceed the code node's memory limit"); }
  function check(what, bytes) { if (bytes > max) tooBig(what); }
  function len(v) { var n = Math.floor(Number(v)); return n > 0 ? n : 0; }
  function define(obj, name, fn) {
    Object.defineProperty(obj, name, { value: fn, writable: true, configurable: true });
  }
  function wrap(obj, name, guard) {
    var orig = obj[name];
    define(obj, name, function () {
      guard.apply(this, arguments);
      return orig.apply(this, arguments);
    });
  }

  wrap(String.prototype, "repeat", function (n) { check("repeat", String(this).length * len(n) * 2); });
  wrap(String.prototype, "padStart", function (n) { check("padStart", len(n) * 2); });
  wrap(String.prototype, "padEnd", function (n) { check("padEnd", len(n) * 2); });
  wrap(String.prototype, "split", function (sep) {
    if (sep === "") check("split", String(this).length * 32);
  });
  var concat = String.prototype.concat;
  define(String.prototype, "concat", function () {
    var parts = [], total = 0;
    for (var i = 0; i < arguments.length; i++) {
      parts.push(String(arguments[i]));
      total += parts[i].length;
    }
    check("concat", (String(this).length + total) * 2);
    return concat.apply(this, parts);
  });

  var join = Array.prototype.join;
  define(Array.prototype, "join", function (sep) {
    var n = len(this.length), s = sep === undefined ? 1 : String(sep).length, total = Math.max(n - 1, 0) * s;
    for (var i = 0; i < n && total * 2 <= max; i++) {
      var v = this[i];
      if (typeof v === "string") total += v.length;
    }
    check("join", total * 2);
    return join.call(this, sep);
  });
  wrap(Array.prototype, "fill", function () { check("fill", len(this.length) * 16); });
  wrap(Array, "from", function (items) {
    if (items != null && typeof items === "object" && typeof items.length === "number") check("Array.from", len(items.length) * 16);
  });

  var stringify = JSON.stringify;
  define(JSON, "stringify", function (value, replacer, space) {
    var total = 0, user = typeof replacer === "function" ? replacer : null;
    var counter = function (key, v) {
      if (user) v = user.call(this, key, v);
      total += key.length + (typeof v === "string" ? v.length + 8 : 8);
      if (total * 2 > max) tooBig("JSON.stringify");
      return v;
    };
    if (Array.isArray(replacer)) {
      stringify(value, counter, space); // counts every key; the list only shortens the output
      return stringify(value, replacer, space);
    }
    return stringify(value, counter, space);
  });

  ["ArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
   "Int32Array", "Uint32Array", "Float32Array", "Float64Array"].forEach(function (name) {
    var Ctor = global[name];
    if (typeof Ctor !== "function") return;
    var size = Ctor.BYTES_PER_ELEMENT || 1;
    global[name] = new Proxy(Ctor, {
      construct: function (target, args) {
        if (typeof args[0] === "number") check("new " + name, args[0] * size);
        return Reflect.construct(target, args);
      }
    });
  });
})
