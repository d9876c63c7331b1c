// The guest side of the gg global: a strict-mode shim run in each isolate before its program. It captures the host's
// dispatchers and the builtins it relies on, installs gg and console, takes away what escapes the heap limit, and
// settles the program's promise into one JSON string. Arguments cross as one JSON string made here; what JSON cannot
// carry is reported to the host as such, which refuses the call like any bad argument.

/** Characters of one console entry. */
const LOG_ENTRY_CHARS = 8192;
/** Characters of the reason a program's arguments could not become JSON, as the guest sends it. */
export const UNSENT_CHARS = 300;

/**
 * The shim's source, run once per isolate before the program with $0 to $4: the two dispatchers, the console
 * callback, the gg functions' layout as JSON and the result limit in characters. It captures what it needs, then
 * never exposes the dispatchers.
 */
export const SHIM = `'use strict';
const dispatch = $0, dispatchSync = $1, emit = $2, layout = JSON.parse($3), resultLimit = $4;
const { stringify, parse } = JSON;
const { freeze, defineProperty, getPrototypeOf, setPrototypeOf } = Object;
const { construct, apply } = Reflect;
const sliceString = String.prototype.slice;
const PromiseCtor = Promise, promiseThen = Promise.prototype.then;
const ErrorCtor = Error, StringCtor = String, RangeErrorCtor = RangeError, TypeErrorCtor = TypeError;
const fixed = (value) => ({ value, writable: false, enumerable: false, configurable: false });
// Memory that isolated-vm's allocator does not count: WebAssembly memories, growable SharedArrayBuffers and
// resizable ArrayBuffers. Programs get none of them, so the heap limit bounds everything they can hold.
for (const name of ["WebAssembly", "SharedArrayBuffer", "Atomics"]) delete globalThis[name];
const NativeArrayBuffer = ArrayBuffer;
const FixedArrayBuffer = function ArrayBuffer(length, options) {
  if (new.target === undefined) throw new TypeErrorCtor("Constructor ArrayBuffer requires 'new'");
  if (options !== undefined && options !== null && options.maxByteLength !== undefined) {
    throw new RangeErrorCtor("Resizable ArrayBuffers are not available to gg programs; allocate the size you need");
  }
  return construct(NativeArrayBuffer, [length], new.target);
};
setPrototypeOf(FixedArrayBuffer, getPrototypeOf(NativeArrayBuffer));
defineProperty(FixedArrayBuffer, "prototype", fixed(NativeArrayBuffer.prototype));
defineProperty(FixedArrayBuffer, "isView", { value: NativeArrayBuffer.isView, writable: true, configurable: true });
defineProperty(FixedArrayBuffer, Symbol.species, { get() { return this; }, configurable: true });
defineProperty(NativeArrayBuffer.prototype, "constructor", { value: FixedArrayBuffer, writable: true, configurable: true });
defineProperty(globalThis, "ArrayBuffer", { value: FixedArrayBuffer, writable: true, configurable: true });
const options = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }), result: freeze({ __proto__: null, promise: true, copy: true }) });
const syncOptions = freeze({ __proto__: null, arguments: freeze({ __proto__: null, copy: true }), result: freeze({ __proto__: null, copy: true }) });
const format = (value) => {
  if (typeof value === "string") return value;
  try {
    if (value instanceof ErrorCtor) return StringCtor(value.stack || value.message);
    const json = stringify(value);
    return json === undefined ? StringCtor(value) : json;
  } catch {
    try { return StringCtor(value); } catch { return "[unprintable]"; }
  }
};
const encode = (args) => {
  while (args.length > 0 && args[args.length - 1] === undefined) args.length--;
  return stringify(args);
};
// Why arguments could not be turned into JSON (a BigInt, a cycle, nesting past the stack, a getter or a Proxy trap
// that throws): the host answers it as any bad argument, invalid-argument. Cut here, so a huge message never crosses.
const unsent = (error) => {
  let text;
  try { text = error instanceof ErrorCtor ? StringCtor(error.name) + ": " + StringCtor(error.message) : "a getter or trap threw " + format(error); }
  catch { text = "a getter or trap threw a value that cannot be described"; }
  return apply(sliceString, text, [0, ${UNSENT_CHARS}]);
};
const send = (index, args) => {
  try { return [index, encode(args)]; } catch (error) { return [index, null, unsent(error)]; }
};
const answer = (reply) => {
  if (reply.ok) return reply.value;
  const error = new ErrorCtor(reply.error.message);
  defineProperty(error, "code", { value: reply.error.code, enumerable: true });
  throw error;
};
// Calls that finish on the host without waiting are made inline (a few microseconds); the rest cross as promises.
// A call the host cannot decide inline (its approval waits on a hook or a person) is made again as a promise.
const callSync = async (index, args) => {
  const reply = parse(dispatchSync.applySync(undefined, send(index, args), syncOptions));
  return reply.defer === true ? callAsync(index, args) : answer(reply);
};
const callAsync = async (index, args) => answer(parse(await dispatch.apply(undefined, send(index, args), options)));
const gg = {};
layout.forEach(([module, name, sync], index) => {
  gg[module] = gg[module] || {};
  gg[module][name] = sync ? (...args) => callSync(index, args) : (...args) => callAsync(index, args);
});
for (const module of Object.keys(gg)) freeze(gg[module]);
defineProperty(globalThis, "gg", fixed(freeze(gg)));
const logger = (level) => (...values) => {
  let text = "";
  for (let i = 0; i < values.length && text.length <= ${LOG_ENTRY_CHARS}; i++) text += (i ? " " : "") + format(values[i]);
  emit(level, text.length > ${LOG_ENTRY_CHARS} ? text.slice(0, ${LOG_ENTRY_CHARS}) + " [entry cut at ${LOG_ENTRY_CHARS} characters]" : text);
};
defineProperty(globalThis, "console", fixed(freeze({ log: logger(0), info: logger(1), warn: logger(2), error: logger(3), debug: logger(4) })));
// Messages to the host are built from null-prototype objects and strings, so no toJSON a program installs can
// rewrite them; the host checks them again all the same.
const record = (fields) => setPrototypeOf(fields, null);
const describe = (thrown) => {
  try {
    if (thrown instanceof ErrorCtor) {
      const code = typeof thrown.code === "string" ? thrown.code : "";
      return record({ name: StringCtor(thrown.name), message: StringCtor(thrown.message), code, stack: typeof thrown.stack === "string" ? thrown.stack : "" });
    }
    return record({ name: "Error", message: "the program threw a value that is not an Error: " + format(thrown), code: "", stack: "" });
  } catch {
    return record({ name: "Error", message: "the program threw a value that cannot be described", code: "", stack: "" });
  }
};
const failure = (code, message) => stringify(record({ ok: false, error: record({ code, message }) }));
const settled = (value) => {
  let json;
  try { json = stringify(value === undefined ? null : value); } catch (error) {
    // The reason is cut here, so a huge one can neither cross nor pass for a result over the limit.
    return failure("invalid-result", "The returned value cannot be turned into JSON (" + apply(sliceString, format(error && error.message), [0, ${UNSENT_CHARS}]) + "); return plain data: strings, numbers, booleans, arrays and objects without cycles");
  }
  if (typeof json !== "string") json = "null";
  if (json.length > resultLimit) {
    return failure("result-too-large", "The returned value is " + json.length + " characters as JSON, over the " + resultLimit + "-character result limit; return a summary, or write the data to a file with gg.files.writeFile");
  }
  return '{"ok":true,"result":' + json + "}";
};
const threw = (thrown) => stringify(record({ ok: false, thrown: describe(thrown) }));
// The program's promise is followed with the then captured above, never one the program can replace.
defineProperty(globalThis, "__gg_settle", fixed((program) => new PromiseCtor((resolve) => {
  apply(promiseThen, program, [
    (value) => { try { resolve(settled(value)); } catch (error) { resolve(threw(error)); } },
    (thrown) => resolve(threw(thrown)),
  ]);
})));
`;
