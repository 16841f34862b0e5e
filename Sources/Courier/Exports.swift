// The wire types and the transport seam are part of Courier's API: re-export them so that
// `import Courier` is enough to write endpoints, transports and middlewares.
@_exported import HTTPTypes
@_exported import protocol OpenAPIRuntime.ClientMiddleware
@_exported import protocol OpenAPIRuntime.ClientTransport
@_exported import class OpenAPIRuntime.HTTPBody
