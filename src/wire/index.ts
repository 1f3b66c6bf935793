/** wire/: bytes → lines → frames. Pure: no processes, files, clocks or sockets. */
export * from './frame.js';
export * from './line-splitter.js';
export * from './parse.js';
export * from './correlate.js';
export * from './make-frame.js';
export * from './chunk-line.js';
