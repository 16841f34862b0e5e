/// What to do with a newly received partial response given the stored response of the same variant
/// (see ``CacheRules/combination(of:held:with:storedBodySize:limit:)``).
enum PartialCombination: Sendable, Hashable {
    /// Store the new part alone, replacing what is stored.
    case replace
    /// Leave the stored response: it is the complete representation the part was cut from.
    case keepStored
    /// Store one part holding the stored and the new bytes: `union`, complete when it holds everything.
    case combine(union: HeldRange)
}
