// Toolgate codemode prelude: runs in each script's fresh context before the script. It keeps the host
// callbacks in closures the script cannot reach, removes what a sandbox must not offer, fixes the clock
// and the random numbers (so a replay makes the same calls), and builds `tools` and `console`.
(function (callTool, writeLog, namesJson, seed, now) {
  "use strict";
  const global = globalThis;
  const stringify = JSON.stringify;
  const parse = JSON.parse;
  const freeze = Object.freeze;
  const create = Object.create;
  const defineProperty = Object.defineProperty;
  const keys = Object.keys;
  const StringOf = String;
  const ErrorType = Error;
  const TypeErrorType = TypeError;
  const RealDate = Date;
  const apply = Reflect.apply;
  const arrayJoin = Array.prototype.join;
  const stringSlice = String.prototype.slice;

  // nothing of the host, the shell or other languages; no timers, no shared memory
  for (const name of ["Java", "Packages", "java", "javax", "javafx", "com", "org", "edu", "net", "Polyglot", "Graal",
                      "load", "loadWithNewGlobal", "print", "printErr", "quit", "exit", "read", "readbuffer", "readline",
                      "console", "fetch", "require", "module", "exports", "process", "setTimeout", "setInterval",
                      "setImmediate", "clearTimeout", "clearInterval", "queueMicrotask", "performance", "WebAssembly",
                      "SharedArrayBuffer", "Atomics", "Debug", "arguments", "Realm"]) {
    try { delete global[name]; } catch (e) { /* not configurable: leave it */ }
  }

  // Math.random: a fixed sequence per run (mulberry32 from a 32-bit seed)
  let state = seed >>> 0;
  defineProperty(Math, "random", {
    value: function random() {
      state = (state + 0x6D2B79F5) >>> 0;
      let t = state;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    },
    writable: true, configurable: true
  });

  // Date.now() and new Date() are the run's start; a Date of given fields works as usual
  function FixedDate(...args) {
    if (new.target === undefined) {
      return new RealDate(now).toString();
    }
    return args.length === 0 ? new RealDate(now) : new RealDate(...args);
  }
  FixedDate.prototype = RealDate.prototype;
  FixedDate.now = function now_() { return now; };
  FixedDate.parse = RealDate.parse;
  FixedDate.UTC = RealDate.UTC;
  defineProperty(RealDate.prototype, "constructor", { value: FixedDate, writable: true, configurable: true });
  defineProperty(global, "Date", { value: FixedDate, writable: true, configurable: true });

  // the errors a tool call may raise; the script may catch them and test with instanceof
  function errorClass(name) {
    const type = class extends ErrorType {
      constructor(message, tool, data) {
        super(message);
        defineProperty(this, "name", { value: name, writable: true, configurable: true });
        this.tool = tool;
        this.data = data;
      }
    };
    defineProperty(type, "name", { value: name });
    defineProperty(global, name, { value: type, writable: true, configurable: true });
    return type;
  }
  const named = {
    DeniedError: errorClass("DeniedError"),
    ValidationError: errorClass("ValidationError"),
    ToolError: errorClass("ToolError")
  };

  let done = false;

  function raise(name, message, tool, data) {
    let error;
    if (named[name] !== undefined) {
      error = new named[name](message, tool, data);
    } else if (name === "TypeError") {
      error = new TypeErrorType(message);
      error.tool = tool;
      error.data = data;
    } else {
      error = new ErrorType(message);
      defineProperty(error, "name", { value: StringOf(name), writable: true, configurable: true });
      error.tool = tool;
      error.data = data;
    }
    throw error;
  }

  function toolFunction(fullName, localName) {
    const call = function (input) {
      if (done) {
        throw new ErrorType("the script has returned: " + fullName + " was not called (a tool call from a promise "
          + "after the script returned is never made; tool calls are synchronous, do not use async code)");
      }
      if (arguments.length > 1) {
        throw new TypeErrorType(fullName + " takes one argument, an object; got " + arguments.length);
      }
      let text;
      try {
        text = input === undefined ? "{}" : stringify(input);
      } catch (e) {
        throw new TypeErrorType("the input of " + fullName + " cannot be sent as JSON: " + (e && e.message));
      }
      if (typeof text !== "string") {
        throw new TypeErrorType("the input of " + fullName + " must be an object, got " + typeof input);
      }
      const answer = parse(callTool(fullName, text));
      if (answer.abort === true) {
        throw new ErrorType("the run stopped at " + fullName);
      }
      if (answer.error !== undefined) {
        raise(answer.error.name, answer.error.message, fullName, answer.error.data);
      }
      return answer.ok;
    };
    defineProperty(call, "name", { value: localName });
    return freeze(call);
  }

  const names = parse(namesJson);
  const tools = create(null);
  for (const name of names) {
    const dot = name.indexOf(".");
    if (dot < 0) {
      if (tools[name] === undefined) {
        tools[name] = toolFunction(name, name);
      }
      continue;
    }
    const plugin = name.slice(0, dot);
    const local = name.slice(dot + 1);
    if (tools[plugin] === undefined) {
      tools[plugin] = create(null);
    }
    if (typeof tools[plugin] === "object") {
      tools[plugin][local] = toolFunction(name, local);
    }
  }
  for (const plugin of keys(tools)) {
    if (typeof tools[plugin] === "object") {
      freeze(tools[plugin]);
    }
  }
  freeze(tools);

  const MAX_LINE = 10000;
  function format(value) {
    if (typeof value === "string") {
      return value;
    }
    try {
      const text = stringify(value);
      return text === undefined ? StringOf(value) : text;
    } catch (e) {
      try { return StringOf(value); } catch (e2) { return "[unprintable]"; }
    }
  }
  function logger(prefix) {
    return freeze(function (...values) {
      if (done) {
        return;
      }
      const parts = [];
      for (const value of values) {
        parts.push(format(value));
      }
      let line = prefix + apply(arrayJoin, parts, [" "]);
      if (line.length > MAX_LINE) {
        line = apply(stringSlice, line, [0, MAX_LINE]) + "...";
      }
      writeLog(line);
    });
  }
  const console = freeze({
    log: logger(""), info: logger(""), debug: logger(""), warn: logger("warn: "), error: logger("error: ")
  });

  // runs the script's function; its result leaves as JSON text, written before anything else can run
  return function run(script) {
    let result;
    try {
      result = script(tools, console);
      if (result !== null && (typeof result === "object" || typeof result === "function")
          && typeof result.then === "function") {
        return { error: "the script returned a Promise: tool calls are synchronous, so do not use async code or await" };
      }
      let json;
      try {
        json = stringify(result);
      } catch (e) {
        return { error: "the script's result cannot be written as JSON: " + (e && e.message) };
      }
      return { json: json === undefined ? null : json };
    } finally {
      done = true;
    }
  };
})
