import Foundation
import Testing

/// The fixtures in Fixtures/ are tiny PNG files written byte by byte with known contents; each
/// test states the pixels it expects. Malformed files are made from them here, with the chunk's
/// CRC made right again so that the decoder gets past it to the problem under test.
struct PNGImageTests {
    typealias RGBA = (r: UInt8, g: UInt8, b: UInt8, a: UInt8)

    // MARK: - Colour types

    @Test func rgbImageWithAncillaryChunks() throws {
        // The file also has gAMA and tEXt chunks, which are skipped.
        let image = try PNGImage(contentsOfFile: Self.path("rgb-3x2.png"))
        #expect(image.width == 3 && image.height == 2)
        #expect(image.pixels == [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255,
                                 255, 255, 255, 255, 0, 0, 0, 255, 18, 52, 86, 255])
        #expect(image.pixel(x: 2, y: 1) == (18, 52, 86, 255))
        #expect(image.pixelsUnlikeTheBackground == 5)
        #expect(image.distinctColours == 6)
    }

    @Test func rgbaImage() throws {
        let image = try Self.image("rgba-2x2.png")
        #expect(image.pixels == [255, 0, 0, 255, 0, 255, 0, 128, 0, 0, 255, 0, 10, 20, 30, 40])
    }

    @Test func greyImages() throws {
        #expect(try Self.image("grey-2x2.png").pixels == [0, 0, 0, 255, 64, 64, 64, 255, 128, 128, 128, 255, 255, 255, 255, 255])
        #expect(try Self.image("grey-alpha-2x1.png").pixels == [200, 200, 200, 100, 50, 50, 50, 255])
    }

    /// For grey and RGB images, tRNS names the one colour that is transparent.
    @Test func colourKeyTransparency() throws {
        #expect(try Self.image("grey-key-3x1.png").pixels == [7, 7, 7, 0, 8, 8, 8, 255, 7, 7, 7, 0])   // key: grey 7
        #expect(try Self.image("rgb-key-2x1.png").pixels == [1, 2, 3, 0, 3, 2, 1, 255])                // key: 1, 2, 3
    }

    /// PLTE (10,20,30) (40,50,60) (70,80,90), tRNS 0 and 128 for the first two entries only,
    /// indices 2 0 1 2.
    @Test func paletteImage() throws {
        let image = try Self.image("palette-4x1.png")
        #expect(image.pixels == [70, 80, 90, 255, 10, 20, 30, 0, 40, 50, 60, 128, 70, 80, 90, 255])
        #expect(image.distinctColours == 3)
    }

    @Test func blankImage() throws {
        let image = try Self.image("blank-8x8.png")
        #expect(image.pixel(x: 7, y: 7) == (255, 255, 255, 255))
        #expect(image.pixelsUnlikeTheBackground == 0)
        #expect(image.distinctColours == 1)
    }

    // MARK: - Deflate blocks

    /// 8x8 RGB, pixel (x, y) = ((30x + y) % 256, 30y % 256, 4xy % 256), in 17 stored blocks
    /// (zlib level 0 with a full flush every 25 bytes, so some blocks are empty).
    @Test func storedBlocks() throws {
        #expect(try Self.firstBlockType("stored-8x8.png") == 0)
        let image = try Self.image("stored-8x8.png")
        #expect(image.pixel(x: 7, y: 6) == (216, 180, 168, 255))
        Self.expectEveryPixel(of: image) { x, y in (UInt8((30 * x + y) % 256), UInt8(30 * y % 256), UInt8(4 * x * y % 256), 255) }
    }

    /// 16x16 RGB, squares of 4x4 pixels alternating red (top left) and blue, compressed with
    /// fixed Huffman codes (so with many length-distance pairs).
    @Test func fixedHuffmanBlock() throws {
        #expect(try Self.firstBlockType("fixed-16x16.png") == 1)
        let image = try Self.image("fixed-16x16.png")
        #expect(image.pixel(x: 4, y: 0) == (0, 0, 255, 255))
        Self.expectEveryPixel(of: image) { x, y in (x / 4 + y / 4) % 2 == 0 ? (255, 0, 0, 255) : (0, 0, 255, 255) }
        #expect(image.pixelsUnlikeTheBackground == 128)
    }

    /// 64x64 RGB gradient, pixel (x, y) = (4x, 32 * (y / 8), 2(x + y)), at zlib level 9 (dynamic
    /// Huffman codes), the stream split over IDAT chunks of 100 bytes.
    @Test func dynamicHuffmanBlocksOverSeveralChunks() throws {
        #expect(try Self.firstBlockType("dynamic-64x64.png") == 2)
        #expect(try Self.chunks(Self.fixture("dynamic-64x64.png")).filter { $0.type == "IDAT" }.count == 97)
        let image = try Self.image("dynamic-64x64.png")
        #expect(image.pixel(x: 63, y: 63) == (252, 224, 252, 255))
        Self.expectEveryPixel(of: image) { x, y in (UInt8(4 * x), UInt8(32 * (y / 8)), UInt8(2 * (x + y)), 255) }
        #expect(image.distinctColours == 64 * 64)
        #expect(image.pixelsUnlikeTheBackground == 64 * 64 - 1)
    }

    // MARK: - Row filters

    /// The same 4x4 RGBA image with every row filtered by one filter type: Sub, Up, Average and
    /// Paeth predictions wrap around 256, Average has odd sums, and Paeth picks each of left,
    /// above and above-left somewhere.
    @Test(arguments: ["none", "sub", "up", "average", "paeth"])
    func rowFilter(name: String) throws {
        let image = try Self.image("filter-\(name)-4x4.png")
        #expect(image.pixels == [
            71, 244, 178, 218, 156, 47, 52, 63, 248, 139, 23, 66, 152, 90, 235, 59,
            249, 1, 27, 54, 187, 85, 33, 100, 16, 163, 237, 180, 82, 237, 255, 110,
            46, 90, 238, 127, 15, 235, 24, 108, 35, 82, 78, 147, 213, 253, 36, 202,
            237, 243, 133, 81, 109, 37, 154, 67, 84, 10, 172, 24, 234, 246, 149, 43,
        ])
    }

    // MARK: - Malformed input

    @Test func wrongSignature() throws {
        var bytes = try Self.fixture("rgb-3x2.png")
        bytes[1] = UInt8(ascii: "Q")
        Self.expectError(bytes, mentioning: "bad signature")
        Self.expectError([], mentioning: "bad signature")
    }

    /// Every proper prefix of a file throws; one cut inside a chunk says so.
    @Test func truncatedFiles() throws {
        for name in ["rgb-3x2.png", "palette-4x1.png", "fixed-16x16.png"] {
            let bytes = try Self.fixture(name)
            for count in 0..<bytes.count {
                #expect(throws: PNGImage.Error.self, "\(name) cut to \(count) bytes") { try PNGImage(bytes: Array(bytes.prefix(count))) }
            }
        }
        Self.expectError(Array(try Self.fixture("rgb-3x2.png").prefix(45)), mentioning: "truncated gAMA chunk")
    }

    @Test func corruptedImageDataFailsTheCRC() throws {
        var bytes = try Self.fixture("rgb-3x2.png")
        bytes[bytes.count - 20] ^= 0x40   // inside the IDAT chunk
        Self.expectError(bytes, mentioning: "bad CRC in IDAT chunk")
    }

    @Test func corruptedImageDataWithAGoodCRC() throws {
        let bytes = try Self.fixture("rgb-3x2.png")
        Self.expectError(Self.changingImageData(bytes) { $0[0] = 0x79 }, mentioning: "compression method is not deflate")
        Self.expectError(Self.changingImageData(bytes) { $0[1] ^= 1 }, mentioning: "check bits are wrong")
        Self.expectError(Self.changingImageData(bytes) { $0[2] |= 0b110 }, mentioning: "invalid deflate block type 3")
        Self.expectError(Self.changingImageData(bytes) { $0[$0.count - 1] ^= 1 }, mentioning: "Adler-32 checksum does not match")
        Self.expectError(Self.changingImageData(bytes) { $0.removeLast(6) }, mentioning: "ends early")
        // A stored block of 5 bytes, but the length check is not its complement.
        Self.expectError(Self.changingImageData(bytes) { $0 = [0x78, 0x01, 0x01, 0x05, 0x00, 0xFA, 0xFE, 1, 2, 3, 4, 5] },
                         mentioning: "length check fails")
    }

    /// Hand-assembled deflate streams after a zlib header (0x78 0x01).
    @Test func badHuffmanCodes() throws {
        let bytes = try Self.fixture("rgb-3x2.png")
        // A dynamic block whose 19 code-length codes all have length 1.
        Self.expectError(Self.changingImageData(bytes) { $0 = [0x78, 0x01, 0x05, 0xE0, 0x93, 0x24, 0x49, 0x92, 0x24, 0x49, 0x92, 0x00] },
                         mentioning: "bad Huffman code: more codes of length 1 than fit")
        // A dynamic block whose code-length code has the single code 0, then only 1 bits.
        Self.expectError(Self.changingImageData(bytes) { $0 = [0x78, 0x01, 0x05, 0x00, 0x00, 0xE4, 0xFF, 0x1F, 0, 0, 0, 0] },
                         mentioning: "bad Huffman code: no symbol has this code")
        // A fixed block that starts by copying from distance 1, before there is anything to copy.
        Self.expectError(Self.changingImageData(bytes) { $0 = [0x78, 0x01, 0x03, 0x02, 0, 0, 0, 0] },
                         mentioning: "distance 1 reaches back before the start")
    }

    @Test func unsupportedOrInvalidHeaders() throws {
        let bytes = try Self.fixture("rgb-3x2.png")
        func header(_ change: (inout [UInt8]) -> Void) -> [UInt8] { Self.changing("IHDR", in: bytes, change) }
        Self.expectError(header { $0[12] = 1 }, mentioning: "interlaced images are not supported")
        Self.expectError(header { $0[9] = 5 }, mentioning: "unsupported colour type 5")
        Self.expectError(header { $0[8] = 16 }, mentioning: "unsupported bit depth 16")
        Self.expectError(header { $0[0...3] = [0xFF, 0xFF, 0xFF, 0xFF] }, mentioning: "unsupported size 4294967295x2")
        Self.expectError(header { $0[4...7] = [0, 0, 0, 0] }, mentioning: "unsupported size 3x0")
        Self.expectError(header { $0[3] = 4 }, mentioning: "image data holds 20 bytes, not 26")
        Self.expectError(header { $0[3] = 2 }, mentioning: "longer than the 14 bytes the image needs")
        Self.expectError(header { $0.removeLast() }, mentioning: "IHDR must hold 13 bytes")
        // Upper case in the first letter makes a chunk critical.
        Self.expectError(Self.renaming("gAMA", to: "GAMA", in: bytes), mentioning: "unknown critical chunk GAMA")
        Self.expectError(Self.renaming("IHDR", to: "ihdr", in: bytes), mentioning: "the first chunk is ihdr, not IHDR")
    }

    @Test func badPalettesAndFilters() throws {
        let palette = try Self.fixture("palette-4x1.png")
        Self.expectError(Self.changing("PLTE", in: palette) { $0.removeLast(3) }, mentioning: "palette index 2 is beyond the 2 PLTE entries")
        Self.expectError(Self.changing("PLTE", in: palette) { $0.removeLast() }, mentioning: "without a valid PLTE chunk")
        let rows = try Self.fixture("filter-up-4x4.png")
        Self.expectError(Self.changingImageData(rows) { $0 = Self.zlibStored([2] + Array(repeating: 0, count: 16) + [5]) },
                         mentioning: "image data holds 18 bytes, not 68")
        Self.expectError(Self.changingImageData(rows) { $0 = Self.zlibStored((0..<4).flatMap { [$0 == 2 ? 7 : 0] + Array(repeating: 0, count: 16) }) },
                         mentioning: "unknown filter type 7 on row 2")
    }

    /// Every byte of a compressed stream changed in turn (CRC mended): a throw or an image, no trap.
    @Test func noTrapOnAnyChangedByte() throws {
        for name in ["fixed-16x16.png", "palette-4x1.png", "stored-8x8.png"] {
            let bytes = try Self.fixture(name)
            let length = Self.chunks(bytes).filter { $0.type == "IDAT" }.map(\.data.count).reduce(0, +)
            for index in 0..<length {
                for change: UInt8 in [0x01, 0x10, 0x80, 0xFF] {
                    let image = try? PNGImage(bytes: Self.changingImageData(bytes) { $0[index] ^= change })
                    #expect(image.map { $0.pixels.count == $0.width * $0.height * 4 } ?? true)
                }
            }
        }
    }

    // MARK: - Fixtures

    static func path(_ name: String) -> String {
        let file = #filePath
        return file[..<(file.lastIndex(of: "/") ?? file.startIndex)] + "/Fixtures/" + name
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(name))))
    }

    static func image(_ name: String) throws -> PNGImage { try PNGImage(bytes: fixture(name)) }

    static func expectError(_ bytes: [UInt8], mentioning text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let error = #expect(throws: PNGImage.Error.self, sourceLocation: sourceLocation) { try PNGImage(bytes: bytes) }
        #expect(error?.description.contains(text) == true, "\(error?.description ?? "no error")", sourceLocation: sourceLocation)
    }

    static func expectEveryPixel(of image: PNGImage, sourceLocation: SourceLocation = #_sourceLocation, _ expected: (Int, Int) -> RGBA) {
        let wrong = (0..<image.height).flatMap { y in (0..<image.width).map { (x: $0, y: y) } }.filter { image.pixel(x: $0.x, y: $0.y) != expected($0.x, $0.y) }
        #expect(wrong.isEmpty, "\(wrong.count) pixels differ, first at \(wrong.first.map { "(\($0.x), \($0.y))" } ?? "")", sourceLocation: sourceLocation)
    }

    /// The BTYPE of the first deflate block, so that a fixture is known to exercise what it claims.
    static func firstBlockType(_ name: String) throws -> UInt8 {
        let stream = chunks(try fixture(name)).filter { $0.type == "IDAT" }.flatMap(\.data)
        return stream[2] >> 1 & 3
    }

    // MARK: - Chunks

    /// A well-formed file's chunks; the fixtures are all well formed.
    static func chunks(_ bytes: [UInt8]) -> [(type: String, data: [UInt8])] {
        var chunks: [(type: String, data: [UInt8])] = [], offset = 8
        while offset < bytes.count {
            let length = Int(PNGImage.bigEndian(bytes, at: offset))
            chunks.append((String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self), Array(bytes[offset + 8..<offset + 8 + length])))
            offset += 12 + length
        }
        return chunks
    }

    static func file(_ chunks: [(type: String, data: [UInt8])]) -> [UInt8] {
        func bigEndian(_ value: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunks.flatMap { chunk in
            let body = Array(chunk.type.utf8) + chunk.data
            return bigEndian(UInt32(chunk.data.count)) + body + bigEndian(PNGImage.crc32(body[...]))
        }
    }

    static func changing(_ type: String, in bytes: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        var changed = chunks(bytes)
        for index in changed.indices where changed[index].type == type { change(&changed[index].data) }
        return file(changed)
    }

    static func renaming(_ type: String, to newType: String, in bytes: [UInt8]) -> [UInt8] {
        file(chunks(bytes).map { $0.type == type ? (newType, $0.data) : $0 })
    }

    /// The file with its IDAT chunks joined into one and that stream changed.
    static func changingImageData(_ bytes: [UInt8], _ change: (inout [UInt8]) -> Void) -> [UInt8] {
        let all = chunks(bytes)
        var stream = all.filter { $0.type == "IDAT" }.flatMap(\.data)
        change(&stream)
        let first = all.firstIndex { $0.type == "IDAT" }!
        return file(all[..<first].filter { $0.type != "IDAT" } + [("IDAT", stream)] + all[first...].filter { $0.type != "IDAT" })
    }

    /// `data` in one stored block of a zlib stream.
    static func zlibStored(_ data: [UInt8]) -> [UInt8] {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in data { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        let length = UInt16(data.count)
        return [0x78, 0x01, 0x01, UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)] + data
            + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: (b << 16 | a) >> $0) }
    }
}
