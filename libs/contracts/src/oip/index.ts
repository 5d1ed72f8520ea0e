export * from './grpc-status-error.js';
export * from './oip-server-messages.js';
