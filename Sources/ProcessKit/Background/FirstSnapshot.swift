extension BackgroundMachine {
    /// Where this incarnation is with the handler's first snapshot, as far as answering tabs goes.
    enum FirstSnapshot: Equatable {
        /// No snapshot request has had a usable answer yet: tabs are answered from the cache, or
        /// wait while there is none.
        case awaited
        /// A snapshot request had a usable answer: tabs are answered from the cache (the
        /// native-first-startup flaw waits for this).
        case heard
        /// With nothing cached, a native request timed out or a snapshot answer was unusable:
        /// tabs are answered from now on, from the built-in defaults while nothing is cached,
        /// whatever comes later.
        case givenUp
    }
}
