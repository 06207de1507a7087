import Foundation

/// A PNG decoder just large enough to tell whether a headless browser's screenshot shows
/// anything: there is no image library on Linux and zlib is not reachable without a module map.
/// It reads 8-bit grey, grey+alpha, RGB, RGBA and palette images that are not interlaced, checks
/// every chunk's CRC and the zlib stream's Adler-32, and throws rather than trapping on any
/// malformed input.
struct PNGImage {
    let width: Int, height: Int
    /// Row-major RGBA, 8 bits per channel.
    let pixels: [UInt8]

    struct Error: Swift.Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    init(contentsOfFile path: String) throws(Error) {
        guard let data = FileManager.default.contents(atPath: path) else { throw Error("cannot read \(path)") }
        try self.init(bytes: [UInt8](data))
    }

    init(bytes: [UInt8]) throws(Error) {
        guard bytes.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) else {
            throw Error("bad signature: not a PNG file")
        }
        var header: [UInt8]?, palette: [UInt8] = [], transparency: [UInt8] = [], compressed: [UInt8] = []
        var offset = 8
        chunks: while true {
            guard bytes.count - offset >= 12 else { throw Error("truncated chunk at byte \(offset): the file ends before IEND") }
            let length = Int(Self.bigEndian(bytes, at: offset)), start = offset + 8
            let type = String(decoding: bytes[offset + 4..<start], as: UTF8.self)
            guard length <= bytes.count - start - 4 else { throw Error("truncated \(type) chunk at byte \(offset): \(length) bytes declared") }
            guard Self.crc32(bytes[offset + 4..<start + length]) == Self.bigEndian(bytes, at: start + length) else {
                throw Error("bad CRC in \(type) chunk at byte \(offset)")
            }
            guard header != nil || type == "IHDR" else { throw Error("the first chunk is \(type), not IHDR") }
            let data = Array(bytes[start..<start + length])
            offset = start + length + 4
            switch type {
            case "IHDR": header = data
            case "PLTE": palette = data
            case "tRNS": transparency = data
            case "IDAT": compressed += data
            case "IEND": break chunks
            // Bit 5 of a type's first letter (lower case) marks an ancillary chunk, which may be skipped.
            default: guard bytes[start - 4] & 0x20 != 0 else { throw Error("unknown critical chunk \(type)") }
            }
        }
        guard let header, header.count == 13 else { throw Error("IHDR must hold 13 bytes") }
        let width = Int(Self.bigEndian(header, at: 0)), height = Int(Self.bigEndian(header, at: 4))
        let (depth, colourType) = (header[8], header[9])
        // A cap of 64 Mpixels bounds the memory a bad header can claim; screenshots are far smaller.
        guard (1...1 << 24).contains(width), (1...1 << 24).contains(height), width * height <= 1 << 26 else {
            throw Error("unsupported size \(width)x\(height)")
        }
        guard depth == 8 else { throw Error("unsupported bit depth \(depth): only 8 bits per sample are read") }
        guard let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType] else { throw Error("unsupported colour type \(colourType)") }
        guard header[10] == 0, header[11] == 0 else { throw Error("unknown compression or filter method") }
        guard header[12] == 0 else { throw Error("interlaced images are not supported") }
        guard colourType != 3 || (palette.count % 3 == 0 && (3...768).contains(palette.count)) else {
            throw Error("palette image without a valid PLTE chunk")
        }
        guard !compressed.isEmpty else { throw Error("no IDAT chunk") }

        let rowBytes = width * channels
        let filtered = try Inflater.inflate(zlib: compressed, size: height * (rowBytes + 1))
        let samples = try Self.unfilter(filtered, rowBytes: rowBytes, height: height, pixelBytes: channels)
        // For grey and RGB images, tRNS names one colour (in 16-bit samples) that is transparent.
        let key: [Int]? = (colourType == 0 || colourType == 2) && transparency.count == 2 * channels
            ? stride(from: 0, to: transparency.count, by: 2).map { Int(transparency[$0]) << 8 | Int(transparency[$0 + 1]) } : nil
        var pixels: [UInt8] = []
        pixels.reserveCapacity(width * height * 4)
        for i in stride(from: 0, to: samples.count, by: channels) {
            let keyAlpha: UInt8 = key != nil && samples[i..<i + channels].map(Int.init) == key ? 0 : 255
            switch colourType {
            case 0: pixels += [samples[i], samples[i], samples[i], keyAlpha]
            case 2: pixels += [samples[i], samples[i + 1], samples[i + 2], keyAlpha]
            case 3:
                let entry = Int(samples[i])
                guard entry * 3 < palette.count else { throw Error("palette index \(entry) is beyond the \(palette.count / 3) PLTE entries") }
                pixels += palette[entry * 3..<entry * 3 + 3] + [entry < transparency.count ? transparency[entry] : 255]
            case 4: pixels += [samples[i], samples[i], samples[i], samples[i + 1]]
            default: pixels += samples[i..<i + 4]
            }
        }
        (self.width, self.height, self.pixels) = (width, height, pixels)
    }

    /// Traps when (x, y) is outside the image, like an array index.
    func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition((0..<width).contains(x) && (0..<height).contains(y), "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let i = (y * width + x) * 4
        return (pixels[i], pixels[i + 1], pixels[i + 2], pixels[i + 3])
    }

    /// How many pixels differ from the top-left pixel's colour (the page background): 0 for a blank image.
    var pixelsUnlikeTheBackground: Int {
        let colours = self.colours
        return colours.count(where: { $0 != colours[0] })
    }

    /// How many distinct colours the image has.
    var distinctColours: Int { Set(colours).count }

    /// Each pixel's RGBA in one number, which is quicker to compare and hash than four bytes.
    private var colours: [UInt32] {
        stride(from: 0, to: pixels.count, by: 4).map { i in
            UInt32(pixels[i]) << 24 | UInt32(pixels[i + 1]) << 16 | UInt32(pixels[i + 2]) << 8 | UInt32(pixels[i + 3])
        }
    }

    /// Undoes the row filters (PNG section 9): each row starts with a byte naming its filter, and
    /// each filter predicts a byte from the one a pixel to the left (a), above (b) and above-left (c).
    private static func unfilter(_ data: [UInt8], rowBytes: Int, height: Int, pixelBytes: Int) throws(Error) -> [UInt8] {
        guard data.count == height * (rowBytes + 1) else { throw Error("image data holds \(data.count) bytes, not \(height * (rowBytes + 1))") }
        var lines = [UInt8](repeating: 0, count: rowBytes * height)
        for y in 0..<height {
            let filter = data[y * (rowBytes + 1)], row = y * rowBytes
            guard filter <= 4 else { throw Error("unknown filter type \(filter) on row \(y)") }
            for x in 0..<rowBytes {
                let a = x >= pixelBytes ? Int(lines[row + x - pixelBytes]) : 0
                let b = y > 0 ? Int(lines[row - rowBytes + x]) : 0
                let c = x >= pixelBytes && y > 0 ? Int(lines[row - rowBytes + x - pixelBytes]) : 0
                let prediction = switch filter {
                case 0: 0
                case 1: a
                case 2: b
                case 3: (a + b) / 2
                default: paeth(a, b, c)
                }
                lines[row + x] = data[y * (rowBytes + 1) + 1 + x] &+ UInt8(prediction)
            }
        }
        return lines
    }

    /// Whichever of left, above and above-left is nearest to left + above - above-left, ties
    /// going in that order.
    private static func paeth(_ a: Int, _ b: Int, _ c: Int) -> Int {
        let p = a + b - c
        let (pa, pb, pc) = (abs(p - a), abs(p - b), abs(p - c))
        return pa <= pb && pa <= pc ? a : pb <= pc ? b : c
    }

    static func bigEndian(_ bytes: [UInt8], at offset: Int) -> UInt32 {
        bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static let crcTable: [UInt32] = (0..<256).map { n in
        (0..<8).reduce(UInt32(n)) { c, _ in c & 1 == 1 ? 0xEDB8_8320 ^ c >> 1 : c >> 1 }
    }

    /// The CRC-32 of PNG and zlib (ISO 3309), over a chunk's type and data.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        ~bytes.reduce(~0) { crc, byte in crcTable[Int((crc ^ UInt32(byte)) & 0xFF)] ^ crc >> 8 }
    }
}

/// Inflate (RFC 1951) inside a zlib wrapper (RFC 1950), decoding Huffman codes a bit at a time
/// in the manner of zlib's puff.c: slow, but short enough to check against the RFC by eye.
private enum Inflater {
    /// `size` is how many bytes the image needs; more is an error, which bounds the memory a
    /// malformed stream can claim.
    static func inflate(zlib stream: [UInt8], size: Int) throws(PNGImage.Error) -> [UInt8] {
        guard stream.count >= 6 else { throw PNGImage.Error("zlib stream of \(stream.count) bytes is too short") }
        guard stream[0] & 0x0F == 8, stream[0] >> 4 <= 7 else { throw PNGImage.Error("zlib header: compression method is not deflate") }
        guard (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0 else { throw PNGImage.Error("zlib header: check bits are wrong") }
        guard stream[1] & 0x20 == 0 else { throw PNGImage.Error("zlib header: a preset dictionary is not allowed in PNG") }
        var reader = BitReader(bytes: stream, position: 16)
        var output: [UInt8] = []
        output.reserveCapacity(size)
        var last = false
        while !last {
            last = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0:
                reader.position = (reader.position + 7) & ~7
                let length = try reader.bits(16)
                guard try reader.bits(16) == length ^ 0xFFFF else { throw PNGImage.Error("stored block: length check fails") }
                for _ in 0..<length { try output.append(UInt8(reader.bits(8))) }
            case 1: try inflate(&reader, into: &output, size: size, literals: fixedLiterals, distances: fixedDistances)
            case 2:
                let (literals, distances) = try dynamicCodes(&reader)
                try inflate(&reader, into: &output, size: size, literals: literals, distances: distances)
            default: throw PNGImage.Error("invalid deflate block type 3")
            }
            guard output.count <= size else { throw PNGImage.Error("image data is longer than the \(size) bytes the image needs") }
        }
        let end = (reader.position + 7) / 8
        guard stream.count - end >= 4 else { throw PNGImage.Error("zlib stream ends before its Adler-32 checksum") }
        guard PNGImage.bigEndian(stream, at: end) == adler32(output) else { throw PNGImage.Error("zlib Adler-32 checksum does not match the image data") }
        return output
    }

    /// One Huffman-coded block, up to its end-of-block symbol.
    private static func inflate(_ reader: inout BitReader, into output: inout [UInt8], size: Int,
                                literals: Huffman, distances: Huffman) throws(PNGImage.Error) {
        while true {
            guard output.count <= size else { throw PNGImage.Error("image data is longer than the \(size) bytes the image needs") }
            let symbol = try literals.decode(&reader)
            if symbol < 256 { output.append(UInt8(symbol)); continue }
            if symbol == 256 { return }
            guard symbol - 257 < lengthBases.count else { throw PNGImage.Error("bad Huffman code: length symbol \(symbol)") }
            let length = try lengthBases[symbol - 257] + reader.bits(lengthExtraBits[symbol - 257])
            let code = try distances.decode(&reader)
            guard code < distanceBases.count else { throw PNGImage.Error("bad Huffman code: distance symbol \(code)") }
            let distance = try distanceBases[code] + reader.bits(distanceExtraBits[code])
            guard distance <= output.count else { throw PNGImage.Error("distance \(distance) reaches back before the start of the data") }
            for _ in 0..<length { output.append(output[output.count - distance]) }
        }
    }

    /// A dynamic block's own codes: code lengths, themselves Huffman-coded, with run-length repeats.
    private static func dynamicCodes(_ reader: inout BitReader) throws(PNGImage.Error) -> (Huffman, Huffman) {
        let literalCount = try reader.bits(5) + 257, distanceCount = try reader.bits(5) + 1, lengthCount = try reader.bits(4) + 4
        guard literalCount <= 286, distanceCount <= 30 else { throw PNGImage.Error("bad Huffman code: too many length or distance codes") }
        var lengthLengths = [Int](repeating: 0, count: 19)
        for index in [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15].prefix(lengthCount) {
            lengthLengths[index] = try reader.bits(3)
        }
        let lengthCode = try Huffman(lengths: lengthLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            switch try lengthCode.decode(&reader) {
            case let length where length < 16: lengths.append(length)
            case 16:
                guard let previous = lengths.last else { throw PNGImage.Error("bad Huffman code: a repeat with nothing to repeat") }
                lengths += repeatElement(previous, count: try 3 + reader.bits(2))
            case 17: lengths += repeatElement(0, count: try 3 + reader.bits(3))
            default: lengths += repeatElement(0, count: try 11 + reader.bits(7))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw PNGImage.Error("bad Huffman code: code lengths run past the last code") }
        guard lengths[256] != 0 else { throw PNGImage.Error("bad Huffman code: no end-of-block code") }
        return try (Huffman(lengths: Array(lengths[..<literalCount])), Huffman(lengths: Array(lengths[literalCount...])))
    }

    private static let fixedLiterals = try! Huffman(lengths: Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112)
        + Array(repeating: 7, count: 24) + Array(repeating: 8, count: 8))
    private static let fixedDistances = try! Huffman(lengths: Array(repeating: 5, count: 30))
    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769,
                                        1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtraBits = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var (a, b): (UInt32, UInt32) = (1, 0)
        for byte in bytes { a = (a + UInt32(byte)) % 65521; b = (b + a) % 65521 }
        return b << 16 | a
    }
}

/// Deflate packs values from the least significant bit of each byte; reading past the end throws.
private struct BitReader {
    let bytes: [UInt8]
    var position: Int

    mutating func bits(_ count: Int) throws(PNGImage.Error) -> Int {
        var value = 0
        for bit in 0..<count {
            guard position / 8 < bytes.count else { throw PNGImage.Error("compressed image data ends early") }
            value |= Int(bytes[position / 8] >> (position % 8) & 1) << bit
            position += 1
        }
        return value
    }
}

/// A canonical Huffman code (RFC 1951 section 3.2.2) kept as the number of codes of each length
/// and the symbols in code order, which is all a bit-at-a-time decoder needs.
private struct Huffman {
    var counts = [Int](repeating: 0, count: 16)
    var symbols: [Int] = []

    init(lengths: [Int]) throws(PNGImage.Error) {
        for length in lengths { counts[length] += 1 }
        counts[0] = 0
        var unused = 1
        for length in 1...15 {
            unused = unused * 2 - counts[length]
            guard unused >= 0 else { throw PNGImage.Error("bad Huffman code: more codes of length \(length) than fit") }
        }
        var next = [Int](repeating: 0, count: 16)
        for length in 1..<15 { next[length + 1] = next[length] + counts[length] }
        symbols = [Int](repeating: 0, count: lengths.count)
        for (symbol, length) in lengths.enumerated() where length > 0 {
            symbols[next[length]] = symbol
            next[length] += 1
        }
    }

    /// Codes are read most significant bit first; `first` is the first code of the current length.
    func decode(_ reader: inout BitReader) throws(PNGImage.Error) -> Int {
        var code = 0, first = 0, index = 0
        for length in 1...15 {
            code |= try reader.bits(1)
            if code - first < counts[length] { return symbols[index + code - first] }
            index += counts[length]
            first = (first + counts[length]) << 1
            code <<= 1
        }
        throw PNGImage.Error("bad Huffman code: no symbol has this code")
    }
}
