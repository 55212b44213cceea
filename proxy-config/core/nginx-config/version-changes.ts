import type { NginxContext } from './check-directives.js';

/**
 * What an nginx release changed in what a config may say, from 1.18.0 to 1.31.4, as data. Each row
 * keeps its source beside it: the release and the line of nginx's CHANGES saying so, as written in
 * nginx/nginx's docs/xml/nginx/changes.xml (read at release-1.31.4). What nginx 1.22.1 does with each
 * row's `example` is shown on the real `nginx -t` (test/proxy-config/nginx-config/version-changes-live.test.ts);
 * the rows of other versions rest on their CHANGES line.
 */
export interface NginxVersionChange {
  /** The release that made the change. */
  version: string;
  /**
   * `directive`: the directives are new (unknown before); `context`: known, now also taken in
   * `context`; `parameter`: the directive takes a new parameter; `removed`: gone (unknown from
   * `version` on); `deprecated`: still taken, with a warning at every start; `default`: a default changed.
   */
  kind: 'directive' | 'context' | 'parameter' | 'removed' | 'deprecated' | 'default';
  /** The directives it is about (for `parameter`, the directive taking it). */
  directives: readonly string[];
  /** Where: the context the example is written in (a `directive` row is about its whole kind of block). */
  context: NginxContext;
  /** `parameter`/`deprecated`: the word, or its prefix ending in `=` (`route=`). */
  parameter?: string;
  /** The line of nginx's CHANGES for `version` that says so. */
  changes: string;
  /**
   * A Debian package of an earlier release that has it too (a backport), with the line of its
   * changelog (Debian 12's /usr/share/doc/nginx/changelog.Debian.gz) saying so.
   */
  debian?: { since: string; changelog: string };
  /**
   * A statement in `context` showing the change: before `version` nginx refuses it (a `removed` or
   * `deprecated` row: from `version` on). None for a `default` row (nothing for nginx -t to refuse).
   */
  example?: string;
}

/**
 * The releases the table covers: from 1.18.0 (the oldest nginx of a supported LTS distribution) to
 * the release whose changes.xml it was read at (1.31.4, which changed nothing the table holds). A
 * version outside is judged as the nearest of the two.
 */
export const NGINX_VERSIONS_COVERED = { oldest: '1.18.0', newest: '1.31.4' } as const;

export const NGINX_VERSION_CHANGES: readonly NginxVersionChange[] = [
  {
    version: '1.19.0',
    kind: 'directive',
    directives: ['ssl_ocsp', 'ssl_ocsp_responder', 'ssl_ocsp_cache'],
    context: 'server',
    changes: 'Feature: client certificate validation with OCSP.',
    example: 'ssl_ocsp on;',
  },
  {
    version: '1.19.3',
    kind: 'directive',
    directives: ['proxy_cookie_flags'],
    context: 'location',
    changes: 'Feature: the "proxy_cookie_flags" directive.',
    example: 'proxy_cookie_flags one httponly;',
  },
  {
    version: '1.19.3',
    kind: 'directive',
    directives: ['userid_flags'],
    context: 'server',
    changes: 'Feature: the "userid_flags" directive.',
    example: 'userid_flags httponly;',
  },
  {
    version: '1.19.3',
    kind: 'directive',
    directives: ['set'],
    context: 'stream server',
    changes: 'Feature: the ngx_stream_set_module.',
    example: 'set $a 1;',
  },
  {
    version: '1.19.4',
    kind: 'directive',
    directives: [
      'ssl_conf_command',
      'proxy_ssl_conf_command',
      'grpc_ssl_conf_command',
      'uwsgi_ssl_conf_command',
    ],
    context: 'server',
    changes:
      'Feature: the "ssl_conf_command", "proxy_ssl_conf_command", "grpc_ssl_conf_command", and "uwsgi_ssl_conf_command" directives.',
    example: 'ssl_conf_command Options PrioritizeChaCha;',
  },
  {
    version: '1.19.4',
    kind: 'directive',
    directives: ['ssl_reject_handshake'],
    context: 'server',
    changes: 'Feature: the "ssl_reject_handshake" directive.',
    example: 'ssl_reject_handshake on;',
  },
  {
    version: '1.19.4',
    kind: 'directive',
    directives: ['proxy_smtp_auth'],
    context: 'mail server',
    changes: 'Feature: the "proxy_smtp_auth" directive in mail proxy.',
    example: 'proxy_smtp_auth on;',
  },
  {
    version: '1.19.10',
    kind: 'directive',
    directives: ['keepalive_time'],
    context: 'server',
    changes: 'Feature: the "keepalive_time" directive.',
    example: 'keepalive_time 1h;',
  },
  {
    version: '1.21.0',
    kind: 'directive',
    directives: ['max_errors'],
    context: 'mail server',
    changes: 'Feature: the "max_errors" directive in the mail proxy module.',
    example: 'max_errors 5;',
  },
  {
    version: '1.21.4',
    kind: 'directive',
    directives: ['proxy_half_close'],
    context: 'stream server',
    changes: 'Feature: the "proxy_half_close" directive in the stream module.',
    example: 'proxy_half_close on;',
  },
  {
    version: '1.21.4',
    kind: 'directive',
    directives: ['ssl_alpn'],
    context: 'stream server',
    changes: 'Feature: the "ssl_alpn" directive in the stream module.',
    example: 'ssl_alpn h2;',
  },
  {
    version: '1.21.4',
    kind: 'directive',
    directives: ['mp4_start_key_frame'],
    context: 'location',
    changes: 'Feature: the "mp4_start_key_frame" directive in the ngx_http_mp4_module.',
    example: 'mp4_start_key_frame on;',
  },
  {
    version: '1.23.1',
    kind: 'parameter',
    directives: ['resolver'],
    context: 'server',
    parameter: 'ipv4=',
    changes:
      'Feature: looking up of IPv4 addresses while resolving now can be disabled with the "ipv4=off" parameter of the "resolver" directive.',
    example: 'resolver 127.0.0.53 ipv4=off;',
  },
  {
    version: '1.25.0',
    kind: 'directive',
    directives: [
      'http3',
      'http3_hq',
      'http3_max_concurrent_streams',
      'http3_stream_buffer_size',
      'quic_active_connection_id_limit',
      'quic_gso',
      'quic_host_key',
      'quic_retry',
    ],
    context: 'server',
    changes: 'Feature: experimental HTTP/3 support.',
    example: 'http3 on;',
  },
  {
    version: '1.25.0',
    kind: 'directive',
    directives: ['quic_bpf'],
    context: 'main',
    changes: 'Feature: experimental HTTP/3 support.',
    example: 'quic_bpf on;',
  },
  {
    version: '1.25.0',
    kind: 'parameter',
    directives: ['listen'],
    context: 'server',
    parameter: 'quic',
    changes: 'Feature: experimental HTTP/3 support.',
    example: 'listen 127.0.0.1:PORT quic;',
  },
  {
    version: '1.25.1',
    kind: 'directive',
    directives: ['http2'],
    context: 'server',
    changes:
      'Feature: the "http2" directive, which enables HTTP/2 on a per-server basis; the "http2" parameter of the "listen" directive is now deprecated.',
    example: 'http2 on;',
  },
  {
    version: '1.25.1',
    kind: 'deprecated',
    directives: ['listen'],
    context: 'server',
    parameter: 'http2',
    changes:
      'Feature: the "http2" directive, which enables HTTP/2 on a per-server basis; the "http2" parameter of the "listen" directive is now deprecated.',
    example: 'listen 127.0.0.1:PORT http2;',
  },
  {
    version: '1.25.1',
    kind: 'removed',
    directives: ['ssl'],
    context: 'server',
    changes: 'Change: the deprecated "ssl" directive is not supported anymore.',
    example: 'ssl off;',
  },
  {
    version: '1.25.5',
    kind: 'context',
    directives: ['server_name'],
    context: 'stream server',
    changes: 'Feature: virtual servers in the stream module.',
    example: 'server_name example.com;',
  },
  {
    version: '1.25.5',
    kind: 'directive',
    directives: ['pass'],
    context: 'stream server',
    changes: 'Feature: the ngx_stream_pass_module.',
    example: 'pass 127.0.0.1:80;',
  },
  {
    version: '1.27.2',
    kind: 'directive',
    directives: ['proxy_pass_trailers'],
    context: 'location',
    changes: 'Feature: the "proxy_pass_trailers" directive in the ngx_http_proxy_module.',
    example: 'proxy_pass_trailers on;',
  },
  {
    version: '1.27.2',
    kind: 'context',
    directives: ['ssl_stapling', 'ssl_stapling_file', 'ssl_stapling_responder', 'ssl_stapling_verify'],
    context: 'stream server',
    changes: 'Feature: OCSP stapling support in the stream module.',
    example: 'ssl_stapling on;',
  },
  {
    version: '1.27.2',
    kind: 'context',
    directives: ['ssl_ocsp', 'ssl_ocsp_responder', 'ssl_ocsp_cache'],
    context: 'stream server',
    changes: 'Feature: client certificate validation with OCSP in the stream module.',
    example: 'ssl_ocsp on;',
  },
  {
    version: '1.27.3',
    kind: 'default',
    directives: ['ssl_protocols'],
    context: 'server',
    changes: 'Change: now TLSv1 and TLSv1.1 protocols are disabled by default.',
  },
  {
    version: '1.27.3',
    kind: 'context',
    directives: ['resolver', 'resolver_timeout'],
    context: 'upstream',
    changes: 'Feature: the "resolver" and "resolver_timeout" directives in the "upstream" block.',
    example: 'resolver 127.0.0.53;',
  },
  {
    version: '1.27.3',
    kind: 'parameter',
    directives: ['server'],
    context: 'upstream',
    parameter: 'resolve',
    changes: 'Feature: the "server" directive in the "upstream" block supports the "resolve" parameter.',
    example: 'server localhost:8080 resolve;',
  },
  {
    version: '1.27.4',
    kind: 'directive',
    directives: ['keepalive_min_timeout'],
    context: 'server',
    changes: 'Feature: the "keepalive_min_timeout" directive.',
    example: 'keepalive_min_timeout 5s;',
  },
  {
    version: '1.27.4',
    kind: 'directive',
    directives: [
      'ssl_certificate_cache',
      'proxy_ssl_certificate_cache',
      'grpc_ssl_certificate_cache',
      'uwsgi_ssl_certificate_cache',
    ],
    context: 'server',
    changes:
      'Feature: the "ssl_object_cache_inheritable", "ssl_certificate_cache", "proxy_ssl_certificate_cache", "grpc_ssl_certificate_cache", and "uwsgi_ssl_certificate_cache" directives.',
    example: 'ssl_certificate_cache max=16;',
  },
  {
    version: '1.27.4',
    kind: 'directive',
    directives: ['ssl_object_cache_inheritable'],
    context: 'main',
    changes:
      'Feature: the "ssl_object_cache_inheritable", "ssl_certificate_cache", "proxy_ssl_certificate_cache", "grpc_ssl_certificate_cache", and "uwsgi_ssl_certificate_cache" directives.',
    example: 'ssl_object_cache_inheritable off;',
  },
  {
    version: '1.27.4',
    kind: 'directive',
    directives: ['ssl_certificate_cache', 'proxy_ssl_certificate_cache'],
    context: 'stream server',
    changes:
      'Feature: the "ssl_object_cache_inheritable", "ssl_certificate_cache", "proxy_ssl_certificate_cache", "grpc_ssl_certificate_cache", and "uwsgi_ssl_certificate_cache" directives.',
    example: 'ssl_certificate_cache max=16;',
  },
  {
    version: '1.29.0',
    kind: 'directive',
    directives: ['early_hints'],
    context: 'location',
    changes:
      'Feature: support for response code 103 from proxy and gRPC backends; the "early_hints" directive.',
    example: 'early_hints $http2;',
  },
  {
    version: '1.29.1',
    kind: 'directive',
    directives: ['ssl_certificate_compression'],
    context: 'server',
    changes: 'Feature: the "ssl_certificate_compression" directive.',
    example: 'ssl_certificate_compression on;',
  },
  {
    version: '1.29.1',
    kind: 'directive',
    directives: ['ssl_certificate_compression'],
    context: 'stream server',
    changes: 'Feature: the "ssl_certificate_compression" directive.',
    example: 'ssl_certificate_compression on;',
  },
  {
    version: '1.29.1',
    kind: 'directive',
    directives: ['ssl_certificate_compression'],
    context: 'mail server',
    changes: 'Feature: the "ssl_certificate_compression" directive.',
    example: 'ssl_certificate_compression on;',
  },
  {
    version: '1.29.3',
    kind: 'directive',
    directives: ['add_header_inherit', 'add_trailer_inherit'],
    context: 'location',
    changes: 'Feature: the "add_header_inherit" and "add_trailer_inherit" directives.',
    example: 'add_header_inherit merge;',
  },
  {
    version: '1.29.4',
    kind: 'parameter',
    directives: ['proxy_http_version'],
    context: 'location',
    parameter: '2',
    changes: 'Feature: the ngx_http_proxy_module supports HTTP/2.',
    example: 'proxy_http_version 2;',
  },
  {
    version: '1.29.4',
    kind: 'directive',
    directives: ['ssl_ech_file'],
    context: 'server',
    changes:
      'Feature: Encrypted ClientHello TLS extension support when using OpenSSL ECH feature branch; the "ssl_ech_file" directive.',
    example: 'ssl_ech_file /etc/nginx/ech.pem;',
  },
  {
    version: '1.29.4',
    kind: 'directive',
    directives: ['ssl_ech_file'],
    context: 'stream server',
    changes:
      'Feature: Encrypted ClientHello TLS extension support when using OpenSSL ECH feature branch; the "ssl_ech_file" directive.',
    example: 'ssl_ech_file /etc/nginx/ech.pem;',
  },
  {
    version: '1.29.6',
    kind: 'directive',
    directives: ['sticky'],
    context: 'upstream',
    changes:
      'Feature: session affinity support; the "sticky" directive in the "upstream" block of the "http" module; the "server" directive supports the "route" and "drain" parameters.',
    example: 'sticky cookie srv_id;',
  },
  {
    version: '1.29.6',
    kind: 'parameter',
    directives: ['server'],
    context: 'upstream',
    parameter: 'drain',
    changes:
      'Feature: session affinity support; the "sticky" directive in the "upstream" block of the "http" module; the "server" directive supports the "route" and "drain" parameters.',
    example: 'server 127.0.0.1:8080 drain;',
  },
  {
    version: '1.29.6',
    kind: 'parameter',
    directives: ['server'],
    context: 'upstream',
    parameter: 'route=',
    changes:
      'Feature: session affinity support; the "sticky" directive in the "upstream" block of the "http" module; the "server" directive supports the "route" and "drain" parameters.',
    example: 'server 127.0.0.1:8080 route=a;',
  },
  {
    version: '1.29.7',
    kind: 'parameter',
    directives: ['listen'],
    context: 'server',
    parameter: 'multipath',
    changes: 'Feature: the "multipath" parameter of the "listen" directive.',
    example: 'listen 127.0.0.1:PORT multipath;',
  },
  {
    version: '1.29.7',
    kind: 'parameter',
    directives: ['keepalive'],
    context: 'upstream',
    parameter: 'local',
    changes: 'Feature: the "local" parameter of the "keepalive" directive in the "upstream" block.',
    example: 'keepalive 16 local;',
  },
  {
    version: '1.29.7',
    kind: 'default',
    directives: ['keepalive'],
    context: 'upstream',
    changes: 'Change: now the "keepalive" directive in the "upstream" block is enabled by default.',
  },
  {
    version: '1.29.7',
    kind: 'default',
    directives: ['proxy_http_version'],
    context: 'location',
    changes:
      'Change: now ngx_http_proxy_module supports keepalive by default; the default value for "proxy_http_version" is "1.1"; the "Connection" proxy header is not sent by default anymore.',
  },
  {
    version: '1.29.8',
    kind: 'directive',
    directives: ['max_headers'],
    context: 'server',
    changes: 'Feature: the "max_headers" directive.',
    debian: {
      since: '1.22.1-9+deb12u8',
      changelog:
        'backport max_headers directive from upstream nginx. It limits the number of request headers accepted from clients.',
    },
    example: 'max_headers 100;',
  },
  {
    version: '1.31.0',
    kind: 'directive',
    directives: ['least_time'],
    context: 'upstream',
    changes: 'Feature: the "least_time" directive inside the "upstream" block.',
    example: 'least_time header;',
  },
  {
    version: '1.31.0',
    kind: 'directive',
    directives: ['least_time'],
    context: 'stream upstream',
    changes: 'Feature: the "least_time" directive inside the "upstream" block.',
    example: 'least_time connect;',
  },
  {
    version: '1.31.0',
    kind: 'directive',
    directives: [
      'tunnel_pass',
      'tunnel_bind',
      'tunnel_buffer_size',
      'tunnel_connect_timeout',
      'tunnel_next_upstream',
      'tunnel_next_upstream_timeout',
      'tunnel_next_upstream_tries',
      'tunnel_read_timeout',
      'tunnel_send_lowat',
      'tunnel_send_timeout',
      'tunnel_socket_keepalive',
    ],
    context: 'location',
    changes:
      'Feature: the ngx_http_tunnel_module; support for authenticating to proxies in the "auth_basic", "satisfy", and "auth_delay" directives.',
    example: 'tunnel_pass;',
  },
  {
    version: '1.31.0',
    kind: 'directive',
    directives: ['proxy_ssl_alpn'],
    context: 'stream server',
    changes: 'Feature: the "proxy_ssl_alpn" directive in the stream module.',
    example: 'proxy_ssl_alpn h2;',
  },
  {
    version: '1.31.3',
    kind: 'directive',
    directives: [
      'proxy_socket_sndbuf',
      'proxy_socket_rcvbuf',
      'fastcgi_socket_sndbuf',
      'fastcgi_socket_rcvbuf',
      'grpc_socket_sndbuf',
      'grpc_socket_rcvbuf',
      'scgi_socket_sndbuf',
      'scgi_socket_rcvbuf',
      'uwsgi_socket_sndbuf',
      'uwsgi_socket_rcvbuf',
      'tunnel_socket_sndbuf',
      'tunnel_socket_rcvbuf',
    ],
    context: 'location',
    changes:
      'Feature: the "proxy_socket_sndbuf", "proxy_socket_rcvbuf", "fastcgi_socket_sndbuf", "fastcgi_socket_rcvbuf", "grpc_socket_sndbuf", "grpc_socket_rcvbuf", "scgi_socket_sndbuf", "scgi_socket_rcvbuf", "uwsgi_socket_sndbuf", "uwsgi_socket_rcvbuf", "tunnel_socket_sndbuf", and "tunnel_socket_rcvbuf" directives.',
    example: 'proxy_socket_sndbuf 64k;',
  },
  {
    version: '1.31.3',
    kind: 'directive',
    directives: ['proxy_socket_sndbuf', 'proxy_socket_rcvbuf'],
    context: 'stream server',
    changes:
      'Feature: the "proxy_socket_sndbuf", "proxy_socket_rcvbuf", "fastcgi_socket_sndbuf", "fastcgi_socket_rcvbuf", "grpc_socket_sndbuf", "grpc_socket_rcvbuf", "scgi_socket_sndbuf", "scgi_socket_rcvbuf", "uwsgi_socket_sndbuf", "uwsgi_socket_rcvbuf", "tunnel_socket_sndbuf", and "tunnel_socket_rcvbuf" directives.',
    example: 'proxy_socket_sndbuf 64k;',
  },
  {
    version: '1.31.3',
    kind: 'directive',
    directives: ['xml_external_entities'],
    context: 'location',
    changes: 'Feature: the "xml_external_entities" directive in the ngx_http_xslt_filter_module.',
    example: 'xml_external_entities off;',
  },
];
