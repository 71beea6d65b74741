import ShareHTTP
import Testing

/// Addresses as `X-Forwarded-For` and `--trusted-proxy` carry them, and the
/// keys limits count against: a whole IPv4 address, an IPv6 /64.
@Suite struct ClientAddressTests {
    @Test(arguments: [
        ("192.0.2.1", ClientAddress.ipv4(0xC000_0201)),
        ("0.0.0.0", .ipv4(0)),
        ("255.255.255.255", .ipv4(0xFFFF_FFFF)),
        (" 10.0.0.1\t", .ipv4(0x0A00_0001)),
        ("2001:db8::1", .ipv6(high: 0x2001_0DB8_0000_0000, low: 1)),
        ("2001:DB8:0:0:8:800:200C:417A", .ipv6(high: 0x2001_0DB8_0000_0000, low: 0x0008_0800_200C_417A)),
        ("::", .ipv6(high: 0, low: 0)),
        ("::1", .ipv6(high: 0, low: 1)),
        ("fe80::", .ipv6(high: 0xFE80_0000_0000_0000, low: 0)),
        ("1:2:3:4:5:6:7:8", .ipv6(high: 0x0001_0002_0003_0004, low: 0x0005_0006_0007_0008)),
        ("1:2:3::6:7:8", .ipv6(high: 0x0001_0002_0003_0000, low: 0x0000_0006_0007_0008)),
    ])
    func parsesAddresses(text: String, expected: ClientAddress) {
        #expect(ClientAddress(text: text) == expected)
    }

    @Test(arguments: [
        "", "unknown", "10.0.0", "10.0.0.1.2", "10.0.0.256", "10.0.0.-1", "+1.2.3.4", "1.2.3.4:80", "1.2.3.4/24", "1..3.4",
        "１.２.３.４", "[::1]", ":::", "1::2::3", "12345::", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8::", ":1:2:3:4:5:6:7",
        "fe80::1%eth0", "g::1", "203.0.113.7, 10.0.0.1",
    ])
    func refusesAnythingElse(text: String) {
        #expect(ClientAddress(text: text) == nil)
    }

    @Test(arguments: [
        (ClientAddress.ipv4(0xC000_0201), "192.0.2.1"),
        (.ipv6(high: 0x2001_0DB8_0000_0000, low: 1), "2001:db8:0:0:0:0:0:1"),
        (.local, "local"),
    ])
    func describesAddresses(address: ClientAddress, expected: String) {
        #expect(address.description == expected)
    }

    @Test func describedAddressesParseBack() {
        for address in [ClientAddress.ipv4(0x7F00_0001), .ipv4(0xCB00_7107), .ipv6(high: 0x2001_0DB8_1234_5678, low: 0x9ABC_DEF0_0000_0001)] {
            #expect(ClientAddress(text: address.description) == address)
        }
    }

    @Test func anIPv6SlashSixtyFourIsOneLimitKey() {
        let a = ClientAddress.ipv6(high: 0x2001_0DB8_0000_0001, low: 1)
        let b = ClientAddress.ipv6(high: 0x2001_0DB8_0000_0001, low: 0xFFFF_FFFF_FFFF_FFFF)
        let c = ClientAddress.ipv6(high: 0x2001_0DB8_0000_0002, low: 1)
        #expect(a.limitKey == b.limitKey)
        #expect(a.limitKey != c.limitKey)
        #expect(a != b)
    }

    @Test func everyIPv4AddressIsItsOwnLimitKey() {
        let keys = Set((0..<256 as Range<UInt32>).map { ClientAddress.ipv4(0xC000_0200 | $0).limitKey })
        #expect(keys.count == 256)
        #expect(!keys.contains(ClientAddress.local.limitKey))
        #expect(ClientAddress.ipv4(0).limitKey != ClientAddress.ipv6(high: 0, low: 0).limitKey)
    }

    /// Proxies often write an IPv4 client in IPv6's mapped form; read as
    /// anything else, such a client would be counted as the proxy itself.
    @Test func anIPv4MappedAddressIsReadAsIPv4() {
        #expect(ClientAddress(text: "::ffff:203.0.113.7") == .ipv4(0xCB00_7107))
    }
}
