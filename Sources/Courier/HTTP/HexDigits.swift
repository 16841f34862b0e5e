extension UInt8 {
    /// The value of this byte as a hex digit (`0`–`9`, `a`–`f`, `A`–`F`), nil for any other byte.
    package var hexDigitValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

extension Sequence<UInt8> {
    /// The bytes in lowercase hex, two digits each.
    package var hexDigits: String {
        let digits = Array("0123456789abcdef")
        return String(flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }
}
