// Deterministic access logs for the HTML report's browser tests and its screenshots
// (scripts/report-screenshots.mjs): an incident in proxyops' format across many upstreams, and the
// same traffic in nginx's `combined` format, which logs no upstream and no timing.

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
const pad = (n) => String(n).padStart(2, '0');
/** `ms` as nginx's `$time_local` in UTC (`14/Nov/2026:00:00:01 +0000`). */
export const timeLocal = (ms) => {
  const d = new Date(ms);
  return `${pad(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()}:${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
};
const sec = (ms) => (ms / 1000).toFixed(3);

/** The upstream addresses: IPv4, IPv6 and long unix sockets, `count` of them. */
export function sampleUpstreams(count) {
  return Array.from({ length: count }, (_, i) =>
    i % 13 === 5
      ? `unix:/run/services/billing-and-invoicing-worker-pool-${i}.sock`
      : i % 17 === 3
        ? `[2001:db8:85a3::${(i + 10).toString(16)}]:8443`
        : `10.0.2.${i + 10}:8080`,
  );
}

const PATHS = [
  '/api/v1/orders',
  '/api/v1/orders/items',
  '/api/v1/users/me',
  '/api/v1/search?q=shoes',
  '/graphql',
  '/api/v1/cart',
  '/api/v1/checkout/payment-intent/confirm-with-three-domain-secure-challenge',
  '/static/app.3f9c.js',
  '/health/ready',
  '/api/v1/inventory/warehouses/eu-west/stock-levels',
  '/search?q=</script><script>bad()</script>',
];

/**
 * Lines of an incident in proxyops' format: `minutes` minutes from `startMs`, `perMinute` requests a
 * minute on average, spread over `upstreams` addresses. From 35 % to 55 % of the way, one upstream refuses
 * connections (nginx-made 502, retried elsewhere), another answers 500 and 504 itself, and clients give
 * up (499). Returns the text and the exact counts it holds.
 */
export function incidentLog({
  upstreams = 40,
  minutes = 60,
  perMinute = 120,
  startMs = Date.UTC(2026, 10, 21, 10, 0, 0),
  seed = 7,
} = {}) {
  const rnd = mulberry32(seed);
  const pick = (list) => list[Math.floor(rnd() * list.length)];
  const addrs = sampleUpstreams(upstreams);
  const counts = { records: 0, s5xx: 0, proxy5xx: 0, s499: 0 };
  let text = '';
  for (let m = 0; m < minutes; m++) {
    const incident = m >= minutes * 0.35 && m < minutes * 0.55;
    // Traffic swells and ebbs, so the request rate has a shape to read.
    const n = Math.round(perMinute * (0.75 + 0.25 * Math.sin(m / 7)));
    for (let i = 0; i < n; i++) {
      const t = startMs + m * 60_000 + Math.floor((i / n) * 60_000);
      let addr = addrs[Math.floor(rnd() ** 1.6 * addrs.length)];
      let status = rnd() < 0.04 ? 404 : rnd() < 0.1 ? 304 : 200;
      let us = String(status);
      let uct = sec(1 + Math.floor(rnd() * 3));
      let uht = sec(5 + Math.floor(rnd() * 40));
      let urt = sec(8 + Math.floor(rnd() * 60 + (rnd() < 0.05 ? 900 : 0)));
      let path = pick(PATHS.slice(0, 10));
      const k = rnd();
      if (incident && k < 0.12) {
        // The first upstream refuses; nginx retries on the second, which answers.
        const other = addrs[1];
        addr = `${addrs[0]}, ${other}`;
        uct = `-, ${uct}`;
        uht = `-, ${uht}`;
        urt = `0.000, ${urt}`;
        us = `502, ${status}`;
      } else if (incident && k < 0.17) {
        addr = addrs[0];
        status = 502;
        us = '502';
        uct = '-';
        uht = '-';
        urt = '0.000';
      } else if (incident && k < 0.25) {
        addr = addrs[2];
        status = rnd() < 0.7 ? 500 : 504;
        us = String(status);
        path = rnd() < 0.1 ? PATHS[10] : pick(PATHS.slice(0, 4));
      } else if (incident && k < 0.3) {
        status = 499;
        us = '-';
        uht = '-';
        urt = sec(2000 + Math.floor(rnd() * 3000));
      } else if (k < 0.004) {
        status = 504;
        us = '504';
        uht = '-';
        urt = '60.001';
      }
      const lastUht = uht.split(', ').pop();
      const rt = urt === '-' ? '0.000' : sec(Number(urt.split(', ').pop()) * 1000 + 1);
      counts.records++;
      if (status >= 500) counts.s5xx++;
      if (status >= 500 && lastUht === '-') counts.proxy5xx++;
      if (status === 499) counts.s499++;
      text +=
        `198.51.100.${1 + Math.floor(rnd() * 200)} - - [${timeLocal(t)}] "GET ${path} HTTP/1.1" ${status} ${Math.floor(rnd() * 9000)} ` +
        `"-" "Mozilla/5.0" rt=${rt} uct="${uct}" uht="${uht}" urt="${urt}" ua="${addr}" us="${us}" rid="${Math.floor(rnd() * 1e12).toString(16)}" ui="-"\n`;
    }
  }
  return { text, counts };
}

/** The incident's traffic in nginx's `combined` format: no upstream, no timing. */
export function combinedLog(options = {}) {
  const { text, counts } = incidentLog(options);
  const combined = text.replace(/ rt=.*$/gm, '');
  return { text: combined, counts };
}
