import { describe, expect, it } from 'vitest';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import { lintNginxConfig } from '../../../proxy-config/config/lint-config.js';

const fired = (text: string, id: string) =>
  lintNginxConfig({ mainFile: 'x.conf', files: ['x.conf'], directives: parseNginxConfig(text, 'x.conf') })
    .findings.filter((f) => f.ruleId === id)
    .map((f) => f.line);

// On nginx 1.22, every pair below passes nginx -t and the last definition answers (a js_set after a
// map, a map after split_clients, the second of two maps).
describe('variable-defined-twice', () => {
  it('fires at each definition the last one replaces, whichever directive defines it', () => {
    const text = `
map $http_x_a $v { default map; }
split_clients $remote_addr $V { 50% a; * b; }
js_set $v main.v;
`;
    expect(fired(text, 'variable-defined-twice')).toEqual([2, 3]);
  });

  it('is quiet on the same definition read twice, and on http and stream variables of one name', () => {
    const map = 'map $http_upgrade $connection_upgrade { default upgrade; "" close; }';
    expect(fired(`${map}\n${map}\n`, 'variable-defined-twice')).toEqual([]);
    const text = `
http { geo $blocked { default 0; 10.0.0.0/8 1; } }
stream { geo $blocked { default 1; 10.0.0.0/8 0; } }
`;
    expect(fired(text, 'variable-defined-twice')).toEqual([]);
  });
});

// One index of definitions (variable-definitions.ts) serves the rules that follow a variable's
// values too: they read the definition nginx uses, the last one.
describe('the values a variable can hold', () => {
  const config = (first: string, second: string) => `
http {
  resolver 127.0.0.1;
  map $http_x_backend $backend { ${first} }
  map $http_x_backend $backend { ${second} }
  server {
    listen 80;
    location / { proxy_pass http://$backend; }
  }
}
`;
  const clientChosen = 'default $http_x_backend;';
  const fixed = 'default app.internal; staging staging.internal;';

  it('come from the map nginx uses, the last one: an earlier one it replaces lets nothing through', () => {
    expect(fired(config(clientChosen, fixed), 'proxy-pass-ssrf')).toEqual([]);
  });

  it('still let the client choose the host when the last map does', () => {
    expect(fired(config(fixed, clientChosen), 'proxy-pass-ssrf')).toEqual([8]);
  });
});
