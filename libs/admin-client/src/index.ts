export * from './admin-client.js';
export * from './admin-errors.js';
export { type AdminAnswer } from './admin-transport.js';
export * from './upload-body.js';
