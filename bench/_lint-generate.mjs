// A deterministic nginx.conf with `locations` locations for the lint bench: a few servers, most
// locations in one big server (the shape that made lint quadratic), a mix of proxied, static,
// regex, nested and `if` locations, header lines at every level so inheritance is exercised.
export function generateLintConfig(locations) {
  const upstreams = 20;
  const out = [
    'worker_processes auto;',
    'events { worker_connections 1024; }',
    'http {',
    '    log_format main \'$remote_addr [$time_local] "$request" $status $upstream_addr $upstream_status $request_time $upstream_response_time\';',
    '    access_log logs/access.log main;',
    '    add_header X-Frame-Options DENY;',
    '    proxy_set_header Host $host;',
    '    proxy_set_header X-Forwarded-Proto $scheme;',
    '    proxy_set_header X-Request-ID $request_id;',
    '    proxy_http_version 1.1;',
    '    proxy_set_header Connection "";',
  ];
  for (let u = 0; u < upstreams; u++)
    out.push(
      `    upstream app${u} {`,
      `        server 127.0.0.1:${9000 + u};`,
      '        keepalive 16;',
      '    }',
    );
  const servers = 4;
  let written = 0;
  for (let s = 0; s < servers; s++) {
    // The first server holds most of the locations.
    const count =
      s === servers - 1
        ? locations - written
        : s === 0
          ? Math.floor(locations * 0.85)
          : Math.floor(locations * 0.05);
    out.push('    server {', `        listen ${8080 + s};`, `        server_name s${s}.example.test;`);
    out.push(
      '        add_header Strict-Transport-Security "max-age=31536000";',
      '        client_max_body_size 10m;',
    );
    for (let i = 0; i < count; i++, written++) {
      const n = written;
      const kind = n % 10;
      if (kind < 5) {
        out.push(`        location /api${n}/ {`, `            proxy_pass http://app${n % upstreams};`);
        if (kind === 1) out.push('            proxy_read_timeout 30s;');
        if (kind === 2) out.push(`            add_header X-Route api${n};`);
        if (kind === 3) out.push('            proxy_set_header X-Extra 1;');
        out.push('        }');
      } else if (kind === 5) {
        out.push(
          `        location ~ ^/re${n}/(.*)$ {`,
          `            proxy_pass http://127.0.0.1:${9100 + (n % 50)}/$1;`,
          '        }',
        );
      } else if (kind === 6) {
        out.push(
          `        location /static${n}/ {`,
          `            alias /srv/static${n}/;`,
          '            expires 1h;',
          '        }',
        );
      } else if (kind === 7) {
        out.push(
          `        location /outer${n}/ {`,
          `            location /outer${n}/inner/ {`,
          `                proxy_pass http://app${n % upstreams};`,
          '            }',
          '        }',
        );
      } else if (kind === 8) {
        out.push(
          `        location /cond${n}/ {`,
          '            if ($request_method = POST) {',
          '                return 405;',
          '            }',
          `            proxy_pass http://app${n % upstreams};`,
          '        }',
        );
      } else {
        out.push(`        location = /exact${n} {`, '            return 204;', '        }');
      }
    }
    out.push('    }');
  }
  out.push('}', '');
  return out.join('\n');
}
