export * from './format.js';
export * from './slice.js';
