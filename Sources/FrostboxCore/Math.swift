#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

// Thin wrappers so the core needs only libm, not Foundation, for its trigonometry.
@inline(__always) func cosine(_ x: Double) -> Double { cos(x) }
@inline(__always) func arcsine(_ x: Double) -> Double { asin(x) }
@inline(__always) func sinHalfSquared(_ x: Double) -> Double {
    let s = sin(x / 2)
    return s * s
}
@inline(__always) func naturalLog(_ x: Double) -> Double { log(x) }
@inline(__always) func exponential(_ x: Double) -> Double { exp(x) }
