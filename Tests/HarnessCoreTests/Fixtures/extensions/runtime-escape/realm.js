// The global object is the scripts' realm's, prototype and all: its constructor is this realm's
// Object, whose Function refuses to make code from a string.
{
  const escape = (reach) => { try { return typeof reach()('return process')(); } catch (error) { return error.name; } };
  console.log('global escapes', [
    () => globalThis.constructor.constructor,
    () => valueOf.constructor,
    () => Object.getPrototypeOf(globalThis).constructor.constructor,
    () => self.constructor.constructor,
  ].map(escape).join(' '));
}
