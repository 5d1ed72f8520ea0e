export {
  type ApiBody,
  type ApiDescription,
  type ApiExample,
  type ApiHeader,
  type ApiMethod,
  type ApiResponse,
  type ApiRoute,
  type JsonObject,
  type OpenApiDocument,
  buildOpenApiDocument,
} from './openapi-document.js';
export {
  type ServedRoute,
  checkOpenApiDocument,
  toOpenApiPath,
  undescribedFields,
  undocumentedRoutes,
  unservedOperations,
} from './check-openapi-document.js';
export { codesForStatus, errorResponses } from './error-responses.js';
