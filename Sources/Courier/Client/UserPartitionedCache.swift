/// A cache that keeps each user's responses apart, told by a ``Client`` when it is built that the
/// client can't know who a call is for although its calls carry credentials.
package protocol UserPartitionedCache: CachingMiddleware {
    /// The client refreshes credentials but has no ``CredentialsMiddleware`` whose provider says
    /// who is signed in: the cache stores no response sent with credentials and should say why.
    func clientCannotTellUsersApart()
}
