import Foundation

import LaminaGeometry
@testable import LaminaGPU

/// Every GPU test opens its own device (tests run in parallel; a device belongs to one
/// thread at a time). GL is always available here (Mesa llvmpipe): a failure to open is a
/// test failure, never a skip.
func openDevice(_ selection: BackendSelection = .auto) throws -> GPUDevice {
    try GPUDevice(backend: selection)
}

/// True when this process runs inside the GBM test VM (Tools/vm/run-in-vm.sh, set by
/// Tools/test.sh): GBM tests run there and must pass; elsewhere they are listed as
/// disabled with this reason.
let insideGBMVM = ProcessInfo.processInfo.environment["LAMINA_GBM_TESTS"] == "1"

extension RGBAImage {
    /// Pixels that differ from `expected` by more than `tolerance`, as "(x,y) got/expected" lines.
    func mismatches(_ expected: (Int, Int) -> RGBAPixel?, tolerance: Int = 0, limit: Int = 8) -> [String] {
        var out: [String] = []
        for y in 0..<height {
            for x in 0..<width {
                guard let e = expected(x, y) else { continue }
                let got = self[x, y]
                if got.maxChannelDifference(e) > tolerance {
                    if out.count < limit { out.append("(\(x),\(y)) got \(got) expected \(e)") }
                }
            }
        }
        return out
    }
}

func px(_ r: UInt8, _ g: UInt8, _ b: UInt8, _ a: UInt8 = 255) -> RGBAPixel { RGBAPixel(r: r, g: g, b: b, a: a) }

let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
