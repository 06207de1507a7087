/// ISO 8601 times as users write them (`2026-03-01T09:00:00Z`, `2026-03-01T10:00:00.250+01:00`),
/// converted with the proleptic Gregorian calendar and no time zone database.
public enum Timestamp {
    /// Parses `YYYY-MM-DDTHH:MM[:SS[.fff]]` followed by `Z` or `±HH:MM`; nil for anything else.
    public static func parse(_ text: String) -> EpochMillis? {
        let b = Array(text.utf8)
        var i = 0
        func number(_ digits: Int) -> Int? {
            guard i + digits <= b.count else { return nil }
            var value = 0
            for k in i..<(i + digits) {
                guard (48...57).contains(b[k]) else { return nil }
                value = value * 10 + Int(b[k] - 48)
            }
            i += digits
            return value
        }
        func expect(_ c: Character) -> Bool {
            guard i < b.count, b[i] == c.asciiValue! else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect("-"), let month = number(2), expect("-"), let day = number(2),
              i < b.count, b[i] == UInt8(ascii: "T") || b[i] == UInt8(ascii: "t") else { return nil }
        i += 1
        guard let hour = number(2), expect(":"), let minute = number(2) else { return nil }
        var second = 0, millis = 0
        if expect(":") {
            guard let s = number(2) else { return nil }
            second = s
            if expect(".") {
                var scale = 100, digits = 0
                while i < b.count, (48...57).contains(b[i]) {
                    millis += Int(b[i] - 48) * scale
                    scale /= 10
                    digits += 1
                    i += 1
                }
                guard digits > 0 else { return nil }
            }
        }
        guard (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day),
              hour < 24, minute < 60, second < 60 else { return nil }
        guard i < b.count else { return nil }
        var offsetMinutes = 0
        if b[i] == UInt8(ascii: "Z") || b[i] == UInt8(ascii: "z") {
            i += 1
        } else {
            guard let offset = utcOffsetMinutes(String(decoding: b[i...], as: UTF8.self)) else { return nil }
            offsetMinutes = offset
            i = b.count
        }
        guard i == b.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offsetMinutes * 60)
        return seconds * 1000 + Int64(millis)
    }

    /// Parses `±HH:MM` (also `Z`) into minutes east of UTC; nil for anything else.
    public static func utcOffsetMinutes(_ text: String) -> Int? {
        if text == "Z" { return 0 }
        let b = Array(text.utf8)
        guard b.count == 6, b[0] == UInt8(ascii: "+") || b[0] == UInt8(ascii: "-"), b[3] == UInt8(ascii: ":"),
              let time = TimeOfDay(String(decoding: b[1...], as: UTF8.self)), time.minutes <= 18 * 60 else { return nil }
        return b[0] == UInt8(ascii: "-") ? -time.minutes : time.minutes
    }

    /// Formats a time as `YYYY-MM-DDTHH:MM:SS.fffZ` (UTC).
    public static func format(_ time: EpochMillis) -> String {
        let days = time.floorDivided(by: 86_400_000)
        let msOfDay = Int(time - days * 86_400_000)
        let (y, m, d) = civilFromDays(Int(days))
        func pad(_ v: Int, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))T\(pad(msOfDay / 3_600_000, 2)):\(pad(msOfDay / 60_000 % 60, 2)):\(pad(msOfDay / 1000 % 60, 2)).\(pad(msOfDay % 1000, 3))Z"
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 (H. Hinnant's days_from_civil).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
