// Compares this extension's reading of URLs with the Swift harness's (`harness scope URL`):
// the page, host and domain keys of every URL below, and of each host of HostNameTests.swift
// put in a URL. Run from the extension's folder after `swift build`:
//   node tests/compare-scopes.mjs [path/to/harness]
import { execFileSync } from 'node:child_process';
import { parsePageAddress, scopeKeysOf } from '../page-address.js';

const harness = process.argv[2] ?? '../../../.build/debug/harness';
const hosts = [
  'a', 'docs.example.com', 'Docs.EXAMPLE.com', 'localhost', 'under_score.example', '-edge-.example', '1.example',
  'example.1a', 'example.com.', 'EXAMPLE.COM.', '.com', '.', 'bücher.example', 'BÜCHER.example', 'Bücher.Example.',
  '例え.テスト', '例え。テスト', '例え．テスト', '例え｡テスト', '例え。テスト。', 'docs。example。com', 'ｅｘａｍｐｌｅ．ＣＯＭ',
  '\u212Aelvin.example', 'bücher.xn--zckzah', 'xn--bcher-kva.example', 'XN--BCHER-KVA.EXAMPLE', 'Xn--Bcher-Kva.example',
  'xn--r8jz45g.xn--zckzah', 'a\u200Db.example', '192.0.2.1', '0.0.0.0', '255.255.255.255', '10.0.0.1.', '１９２．０．２．１',
  '[2001:DB8:0:0:0:0:0:1]', '[2001:0db8:0000:0000:0000:0000:0000:0001]', '[::]', '[::1]', '[1::]', '[0:0:0:0:0:0:0:0]',
  '[1:0:0:2:0:0:0:3]', '[1:0:0:2:2:0:0:3]', '[2001:db8:0:1:1:1:1:1]', '[1:2:3:4:5:6:7::]', '[::2:3:4:5:6:7:8]',
  '[FE80::ABCD]', '[::ffff:192.0.2.1]', '[::192.0.2.1]', '[1:2:3:4:5:6:1.2.3.4]', '..', '。', '.a', 'a..b',
  'example.com..', 'bücher..example', 'bücher。。', '1..2.3', '01.2.3.4', '1.2.3.256', '1.2.3', '0x1F', 'a.0x1f',
  'a.0X', '1.2.3.4.5', 'xn--', 'xn--a', 'xn--bcher-kva', 'xn--ab', 'a_b.co.uk', 'co.uk', 'www.ck', 'a.b.ck',
  'foo.blogspot.com', 'city.kawasaki.jp', 'x.city.kawasaki.jp', 'a.kawasaki.jp', 'Ⅸ.example', 'ß.example',
  'İstanbul.example', 'ΣΑΣ.example', 'a\u00ADb.example', 'ﬁ.example', 'é.example', 'e\u0301.example',
  'x'.repeat(63) + '.example', 'x'.repeat(64) + '.example', ('a'.repeat(60) + '.').repeat(5) + 'com',
  '[1:2:3:4:5:6:7:8:9]', '[::1', '[1::2::3]', '[:1]', '[12345::]', '[::1%eth0]', '\u{1F600}.example',
  'a\u{E000}b.example', 'a\u{FDD0}b.example', 'a\u2028b.example', 'ａ.example', 'A.EXAMPLE.ORG',
];
const urls = [
  'https://docs.example.com/guide', 'HTTP://Docs.Example.COM./guide/../x?y#z', 'https://docs.example.com',
  'https://user:pw@docs.example.com:8443/a/./b/../c/', 'https:docs.example.com/x', 'https:\\\\docs.example.com\\a\\b',
  '  https://example.org/  ', 'about:blank', 'file:///etc/passwd', 'safari-web-extension://x/popup.html', 'https://',
  'https://:80/', 'https://example.com:99999/', 'https://example.com:/', 'https://example.com:1a/', 'https://[::1]:8080/x',
  'https://[::1]x/', 'https://a@b@c.example/', 'https://example.com/a%2e%2E/b', 'https://example.com/a/%2e%2e/b',
  'https://example.com/%7a%7B/ü/ /"<>`{}', 'https://example.com/a?b/../c', 'https://example.com/a#/..',
  'https://example.com/.', 'https://example.com/..', 'https://example.com/a/..', 'https://example.com/a/.',
  'https://example.com//a//b/', 'https://example.com/%zz/%a', 'https://example.com/%', 'ht!tp://x.example/',
  'https://例え.テスト/パス', 'https://192.168.0.1/', 'https://example.co.uk/x',
  'https://co.uk/', 'https://localhost:3000/', 'http://a.b.c.d.example.net/tools/editor',
  ...hosts.map((host) => `https://${host}/p`),
];

const swift = (url) => {
  try {
    return JSON.parse(execFileSync(harness, ['scope', url], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }));
  } catch {
    return null;
  }
};
const mine = (url) => {
  const address = parsePageAddress(url);
  if (address === null) return null;
  const [page, host, domain] = scopeKeysOf(address).map((key) => key.text);
  return { domain: domain ?? null, host, page };
};

let failures = 0;
for (const url of urls) {
  const [expected, actual] = [swift(url), mine(url)];
  if (JSON.stringify(expected) !== JSON.stringify(actual)) {
    failures += 1;
    console.log(`${JSON.stringify(url)}\n  swift ${JSON.stringify(expected)}\n  js    ${JSON.stringify(actual)}`);
  }
}
console.log(`${urls.length - failures} of ${urls.length} URLs read the same`);
process.exit(failures === 0 ? 0 : 1);
