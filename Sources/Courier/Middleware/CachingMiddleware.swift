/// A middleware that answers from a response cache; the client asks for cached values only when one is present.
package protocol CachingMiddleware: ClientMiddleware {}
