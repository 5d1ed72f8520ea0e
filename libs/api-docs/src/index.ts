export { DOCS_PATH, type DocsReply, type DocsRouteHost, serveApiDocs } from './serve-api-docs.js';
