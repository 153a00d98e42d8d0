import FrostboxCore
import Testing

@Suite("SplitMix64")
struct SplitMix64Tests {
    @Test("matches the reference sequence for seed 0, so generated data is the same everywhere")
    func referenceSequence() {
        var generator = SplitMix64(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
    }

    @Test("below and unit stay in range")
    func ranges() {
        var generator = SplitMix64(seed: 99)
        for _ in 0..<10_000 {
            #expect((0..<7).contains(generator.below(7)))
            let u = generator.unit()
            #expect(u >= 0 && u < 1)
        }
    }
}
