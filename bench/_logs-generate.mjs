// Deterministic generator of realistic access logs in proxyops' rendered text format, with a sidecar
// of exact reference counts. Usage: node bench/_logs-generate.mjs OUT_FILE [--size 200MB] [--seed 1]
// Mix: statuses, 499s, proxy-made and app-made 502/504, 413s with no upstream, retries across two
// upstreams, IPv6 clients, escaped quotes, raw spaces and "-" requests, long query strings, 0.5 % malformed.
import { closeSync, openSync, writeFileSync, writeSync } from 'node:fs';

function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(k|m|g)?b?$/i.exec(text);
  if (!m) throw new Error(`bad --size ${text}`);
  const unit = { k: 1024, m: 1024 ** 2, g: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1;
  return Math.round(Number(m[1]) * unit);
}

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n, w = 2) => String(n).padStart(w, '0');
function timeLocal(ms) {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
}
const sec = (ms) => (ms / 1000).toFixed(3);

/** Generates `size` bytes of log into `out`; returns the reference counts. */
export function generateLogs(out, size, seed = 1) {
  const rnd = mulberry32(seed);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const A = '10.0.1.11:8080';
  const B = '10.0.1.12:8080';
  const paths = [
    '/users',
    '/users/42',
    '/users/42/orders',
    '/orders',
    '/orders/7/items',
    '/users/search',
    '/graphql',
    '/health/ready',
    '/static/app.3f9c.js',
  ];
  const agents = [
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36',
    'curl/8.5.0',
    'Go-http-client/1.1',
    'Mozilla/5.0 (compatible; \\x22quoted\\x22 bot/2.1; +http://example.com/bot)',
  ];
  const clients = [
    '203.0.113.7',
    '198.51.100.23',
    '2001:db8::1',
    '2001:db8:85a3::8a2e:370:7334',
    '192.0.2.200',
  ];
  const ref = {
    lines: 0,
    records: 0,
    malformed: 0,
    status: {},
    proxyGenerated: 0,
    retried: 0,
    clientClosed: 0,
  };
  const fd = openSync(out, 'w');
  let written = 0;
  let t = Date.UTC(2026, 10, 21, 0, 0, 0);
  let batch = '';
  while (written < size) {
    t += Math.floor(rnd() * 200);
    const r = rnd();
    let line;
    ref.lines++;
    if (r < 0.005) {
      ref.malformed++;
      line =
        rnd() < 0.5
          ? `${pick(clients)} - - [${timeLocal(t)}] "GET /users HTTP/1.1" 200 12`
          : `\\x16\\x03\\x01 garbage ${Math.floor(rnd() * 1e9)}`;
    } else {
      ref.records++;
      let status = 200;
      let us = '200';
      let uct = sec(1 + Math.floor(rnd() * 3));
      let uht = sec(3 + Math.floor(rnd() * 60));
      let urt = sec(5 + Math.floor(rnd() * 120));
      let ua = rnd() < 0.5 ? A : B;
      let request = `GET ${pick(paths)}${rnd() < 0.2 ? `?q=${'x'.repeat(Math.floor(rnd() * 400))}&page=${Math.floor(rnd() * 50)}` : ''} HTTP/1.1`;
      let proxyMade = false;
      const k = rnd();
      if (k < 0.02) {
        status = 499;
        us = '-';
        uht = '-';
        urt = sec(300 + Math.floor(rnd() * 3000));
        proxyMade = true;
        ref.clientClosed++;
      } else if (k < 0.03) {
        status = 502;
        us = '502'; // app-made: header received
      } else if (k < 0.035) {
        status = 502;
        us = '502';
        uct = '-';
        uht = '-';
        urt = '0.000';
        proxyMade = true; // refused
      } else if (k < 0.04) {
        status = 504;
        us = '504';
        uht = '-';
        urt = '1.002';
        proxyMade = true; // read timeout
      } else if (k < 0.043) {
        status = 504;
        us = '504'; // app-made 504
      } else if (k < 0.05) {
        status = 413;
        us = '-';
        uct = '-';
        uht = '-';
        urt = '-';
        ua = '-';
        proxyMade = true;
        request = 'POST /orders HTTP/1.1';
      } else if (k < 0.06) {
        us = '502, 200';
        uct = `-, ${uct}`;
        uht = `-, ${uht}`;
        urt = `0.000, ${urt}`;
        ua = `${A}, ${B}`;
        ref.retried++;
      } else if (k < 0.062) {
        status = 400;
        us = '-';
        uct = '-';
        uht = '-';
        urt = '-';
        ua = '-';
        request = '-';
        proxyMade = true;
      } else if (k < 0.064) {
        request = 'GET /users/with raw space HTTP/1.1';
      } else if (k < 0.1) {
        status = 404;
        us = '404';
      } else if (k < 0.15) {
        status = 304;
        us = '304';
      } else if (k < 0.2) {
        status = 201;
        us = '201';
        request = 'POST /orders HTTP/1.1';
      }
      if (proxyMade) ref.proxyGenerated++;
      const rt = urt === '-' ? '0.000' : sec(Number(urt.split(', ').pop()) * 1000 + Math.floor(rnd() * 2));
      ref.status[status] = (ref.status[status] ?? 0) + 1;
      line =
        `${pick(clients)} - - [${timeLocal(t)}] "${request}" ${status} ${Math.floor(rnd() * 20000)} ` +
        `"${rnd() < 0.5 ? '-' : 'https://example.com/page'}" "${pick(agents)}" rt=${rt} uct="${uct}" ` +
        `uht="${uht}" urt="${urt}" ua="${ua}" us="${us}" rid="${Math.floor(rnd() * 2 ** 52)
          .toString(16)
          .padStart(32, '0')}" ui="-"`;
    }
    batch += line + '\n';
    if (batch.length > 1 << 20) {
      written += writeSync(fd, batch);
      batch = '';
    }
  }
  if (batch) written += writeSync(fd, batch);
  closeSync(fd);
  ref.bytes = written;
  return ref;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const out = args[0];
  if (!out) throw new Error('usage: node bench/_logs-generate.mjs OUT_FILE [--size 200MB] [--seed 1]');
  const size = parseSize(
    args[args.indexOf('--size') + 1] && args.includes('--size') ? args[args.indexOf('--size') + 1] : '200MB',
  );
  const seed = args.includes('--seed') ? Number(args[args.indexOf('--seed') + 1]) : 1;
  const ref = generateLogs(out, size, seed);
  writeFileSync(`${out}.ref.json`, JSON.stringify(ref, null, 2));
  console.log(`wrote ${out}: ${ref.lines} lines, ${(ref.bytes / 1e6).toFixed(1)} MB`);
}
