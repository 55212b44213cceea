/**
 * Directive names that nginx 1.22 with Debian's modules (nginx-directives.ts) does not know, and
 * that are directives all the same: of a later nginx release, of nginx's forks (Tengine, Angie,
 * freenginx), of NGINX Plus and App Protect, of njs and nginx's other own modules, and of the
 * third-party modules configs in the wild use. nginx -t refuses each with 'unknown directive'
 * unless a build that defines it runs the config, so the directive-unknown rule leaves them alone
 * where they belong (the kind of block) and never takes one for a typo.
 *
 * How they were read: from each source's `ngx_command_t` tables (the first member of each entry,
 * `ngx_string("name")`, with `#define`d names resolved), the kind of block read off the entry's
 * context bits (NGX_HTTP_* → http, NGX_STREAM_* → stream, NGX_MAIN_CONF → main, a module's own
 * bits such as NGX_RTMP_* → own); for NGINX Plus, App Protect and nginx-otel from the tables
 * nginx-go-crossplane generates from their source, with nginx.org's documentation source
 * (`<directive>` and its `<context>`s) for what those leave out and for the njs and acme names
 * only documented so far. Names nginx 1.22 knows are left out, and so are a fork's names that
 * another list has. Each list's `source` names the repository and the version it was read at; to
 * refresh one, read the same tables at a newer tag and replace its names.
 */

/**
 * The kind of block nginx reads a name in: the main context, events, http (http, server, location,
 * if, limit_except, upstream), stream, mail; `any` for NGX_ANY_CONF; `own` for names read only
 * inside the module's own blocks (`rtmp { ... }`, `acme_issuer { ... }`), which no other block takes.
 */
export type DirectiveScope = 'main' | 'events' | 'http' | 'stream' | 'mail' | 'any' | 'own';

/** One source's names. */
export interface DirectiveList {
  /** Who defines the names, as a finding says it: `nginx 1.25.1`, `NGINX Plus`, `headers-more`. */
  family: string;
  /** A later (or differently built) nginx, NGINX Plus, or a module of its own. */
  kind: 'nginx' | 'plus' | 'module';
  /** Where the names were read, and at which version. */
  source: string;
  /**
   * The module's `ngx_module_t` names: a `load_module` file is named after the first of its build
   * (modules/ngx_http_lua_module.so), so these tell which family a load_module brings in.
   */
  modules?: string;
  /** The names, separated by white space, by the kind of block they are read in. */
  names: Partial<Record<DirectiveScope, string>>;
  /**
   * Of the http names, the statements that run in the rewrite phase with `set` and `if` (NDK's
   * set_var): the module takes them at http level too (NGX_HTTP_MAIN_CONF), but nginx runs a
   * rewrite-phase statement only from a server, a location or an if in them (ngx_http_rewrite_module
   * does not inherit statements), so there it never runs.
   */
  rewritePhase?: string;
}

/** The `ngx_module_t` names of nginx's own modules (release-1.31.4): loading one brings no unknown name. */
export const NGINX_OWN_MODULES = `
  ngx_conf_module ngx_core_module ngx_devpoll_module ngx_epoll_module ngx_errlog_module
  ngx_event_core_module ngx_eventport_module ngx_events_module ngx_google_perftools_module
  ngx_http_access_module ngx_http_addition_filter_module ngx_http_auth_basic_module
  ngx_http_auth_request_module ngx_http_autoindex_module ngx_http_browser_module
  ngx_http_charset_filter_module ngx_http_chunked_filter_module ngx_http_copy_filter_module
  ngx_http_core_module ngx_http_dav_module ngx_http_degradation_module ngx_http_empty_gif_module
  ngx_http_fastcgi_module ngx_http_flv_module ngx_http_geo_module ngx_http_geoip_module
  ngx_http_grpc_module ngx_http_gunzip_filter_module ngx_http_gzip_filter_module
  ngx_http_gzip_static_module ngx_http_header_filter_module ngx_http_headers_filter_module
  ngx_http_image_filter_module ngx_http_index_module ngx_http_limit_conn_module
  ngx_http_limit_req_module ngx_http_log_module ngx_http_map_module ngx_http_memcached_module
  ngx_http_mirror_module ngx_http_module ngx_http_mp4_module ngx_http_not_modified_filter_module
  ngx_http_perl_module ngx_http_postpone_filter_module ngx_http_proxy_module
  ngx_http_proxy_v2_module ngx_http_random_index_module ngx_http_range_body_filter_module
  ngx_http_range_header_filter_module ngx_http_realip_module ngx_http_referer_module
  ngx_http_rewrite_module ngx_http_scgi_module ngx_http_secure_link_module
  ngx_http_slice_filter_module ngx_http_split_clients_module ngx_http_ssi_filter_module
  ngx_http_ssl_module ngx_http_static_module ngx_http_stub_status_module
  ngx_http_sub_filter_module ngx_http_try_files_module ngx_http_tunnel_module
  ngx_http_upstream_hash_module ngx_http_upstream_ip_hash_module
  ngx_http_upstream_keepalive_module ngx_http_upstream_least_conn_module
  ngx_http_upstream_least_time_module ngx_http_upstream_module ngx_http_upstream_random_module
  ngx_http_upstream_zone_module ngx_http_userid_filter_module ngx_http_uwsgi_module
  ngx_http_v2_filter_module ngx_http_v2_module ngx_http_v3_filter_module ngx_http_v3_module
  ngx_http_write_filter_module ngx_http_xslt_filter_module ngx_iocp_module ngx_kqueue_module
  ngx_mail_auth_http_module ngx_mail_core_module ngx_mail_imap_module ngx_mail_module
  ngx_mail_pop3_module ngx_mail_proxy_module ngx_mail_realip_module ngx_mail_smtp_module
  ngx_mail_ssl_module ngx_openssl_cache_module ngx_openssl_module ngx_poll_module
  ngx_quic_bpf_module ngx_quic_module ngx_regex_module ngx_select_module
  ngx_stream_access_module ngx_stream_core_module ngx_stream_geo_module ngx_stream_geoip_module
  ngx_stream_limit_conn_module ngx_stream_log_module ngx_stream_map_module ngx_stream_module
  ngx_stream_pass_module ngx_stream_proxy_module ngx_stream_realip_module
  ngx_stream_return_module ngx_stream_set_module ngx_stream_split_clients_module
  ngx_stream_ssl_module ngx_stream_ssl_preread_module ngx_stream_upstream_hash_module
  ngx_stream_upstream_least_conn_module ngx_stream_upstream_least_time_module
  ngx_stream_upstream_module ngx_stream_upstream_random_module ngx_stream_upstream_zone_module
  ngx_stream_write_filter_module ngx_thread_pool_module
`;

/** Every list, nginx's releases first, then NGINX Plus, then the modules. */
export const DIRECTIVES_ELSEWHERE: readonly DirectiveList[] = [
  {
    family: 'nginx 1.25.0',
    kind: 'nginx',
    source: 'nginx/nginx release-1.25.0 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      main: `
        quic_bpf
      `,
      http: `
        http3 http3_hq http3_max_concurrent_streams http3_stream_buffer_size
        quic_active_connection_id_limit quic_gso quic_host_key quic_retry
      `,
    },
  },
  {
    family: 'nginx 1.25.1',
    kind: 'nginx',
    source: 'nginx/nginx release-1.25.1 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        http2
      `,
    },
  },
  {
    family: 'nginx 1.25.5',
    kind: 'nginx',
    source: 'nginx/nginx release-1.25.5 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      stream: `
        pass
      `,
    },
  },
  {
    family: 'nginx 1.27.2',
    kind: 'nginx',
    source: 'nginx/nginx release-1.27.2 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        proxy_pass_trailers
      `,
    },
  },
  {
    family: 'nginx 1.27.4',
    kind: 'nginx',
    source: 'nginx/nginx release-1.27.4 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      main: `
        ssl_object_cache_inheritable
      `,
      http: `
        grpc_ssl_certificate_cache keepalive_min_timeout proxy_ssl_certificate_cache
        ssl_certificate_cache uwsgi_ssl_certificate_cache
      `,
      stream: `
        proxy_ssl_certificate_cache ssl_certificate_cache
      `,
    },
  },
  {
    family: 'nginx 1.29.0',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.0 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        early_hints
      `,
    },
  },
  {
    family: 'nginx 1.29.1',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.1 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        ssl_certificate_compression
      `,
      stream: `
        ssl_certificate_compression
      `,
      mail: `
        ssl_certificate_compression
      `,
    },
  },
  {
    family: 'nginx 1.29.3',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.3 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        add_header_inherit add_trailer_inherit
      `,
    },
  },
  {
    family: 'nginx 1.29.4',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.4 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        ssl_ech_file
      `,
      stream: `
        ssl_ech_file
      `,
    },
  },
  {
    family: 'nginx 1.29.6',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.6 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        sticky
      `,
    },
  },
  {
    family: 'nginx 1.29.8',
    kind: 'nginx',
    source: 'nginx/nginx release-1.29.8 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        max_headers
      `,
    },
  },
  {
    family: 'nginx 1.31.0',
    kind: 'nginx',
    source: 'nginx/nginx release-1.31.0 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        least_time tunnel_bind tunnel_buffer_size tunnel_connect_timeout tunnel_next_upstream
        tunnel_next_upstream_timeout tunnel_next_upstream_tries tunnel_pass tunnel_read_timeout
        tunnel_send_lowat tunnel_send_timeout tunnel_socket_keepalive
      `,
      stream: `
        least_time proxy_ssl_alpn
      `,
    },
  },
  {
    family: 'nginx 1.31.3',
    kind: 'nginx',
    source: 'nginx/nginx release-1.31.3 (39ffdd8 is release-1.31.4, where they were read)',
    names: {
      http: `
        fastcgi_socket_rcvbuf fastcgi_socket_sndbuf grpc_socket_rcvbuf grpc_socket_sndbuf
        proxy_socket_rcvbuf proxy_socket_sndbuf scgi_socket_rcvbuf scgi_socket_sndbuf
        tunnel_socket_rcvbuf tunnel_socket_sndbuf uwsgi_socket_rcvbuf uwsgi_socket_sndbuf
        xml_external_entities
      `,
      stream: `
        proxy_socket_rcvbuf proxy_socket_sndbuf
      `,
    },
  },
  {
    family: 'nginx after 1.31.4',
    kind: 'nginx',
    source: 'nginx/nginx master at 3f6f782 (2026-08-21): names not yet in a release',
    names: {
      http: `
        client_body_early_read
      `,
    },
  },
  {
    family: 'nginx modules Debian does not build',
    kind: 'nginx',
    source: 'nginx/nginx release-1.22.1: kqueue, devpoll, eventport, iocp, google_perftools, degradation',
    names: {
      main: `
        google_perftools_profiles
      `,
      events: `
        acceptex_read devpoll_changes devpoll_events eventport_events iocp_threads
        kqueue_changes kqueue_events post_acceptex
      `,
      http: `
        degradation degrade
      `,
    },
  },
  {
    family: 'Tengine',
    kind: 'nginx',
    source: 'alibaba/tengine at fcebbd1 (2026-08-08, 4 commits after 3.2.0-rc2)',
    names: {
      main: `
        backtrace_log backtrace_max_stack_size master_env max_retries pipe_set_size processes
        xquic_log xudp_core_path xudp_no_tx xudp_off xudp_rcvnum xudp_retries_interval
        xudp_sndnum
      `,
      events: `
        rtsig_overflow_events rtsig_overflow_test rtsig_overflow_threshold rtsig_signo
      `,
      http: `
        append_header append_header_separator client_body_buffers client_body_postpone_size
        consistent_hash debug_conn debug_pool debug_timer dubbo_bind dubbo_buffer_size
        dubbo_connect_timeout dubbo_heartbeat_interval dubbo_hide_header dubbo_ignore_headers
        dubbo_intercept_errors dubbo_next_upstream dubbo_next_upstream_timeout
        dubbo_next_upstream_tries dubbo_pass dubbo_pass_all_headers dubbo_pass_body
        dubbo_pass_header dubbo_pass_set dubbo_read_timeout dubbo_send_timeout
        dubbo_socket_keepalive dubbo_upstream_error_info dynamic_resolve dyups_read_msg_log
        dyups_read_msg_timeout dyups_trylock dyups_upstream_conf enable_ntls fastcgi_rcvbuf_size
        fastcgi_sndbuf_size fastcgi_upstream_tries footer footer_types geoip_region
        grpc_enable_ntls grpc_ssl_enc_certificate grpc_ssl_enc_certificate_key
        grpc_ssl_sign_certificate grpc_ssl_sign_certificate_key gzip_clear_etag
        image_filter_crop_offset ingress_failover_named_location ingress_gateway
        ingress_gateway_hash_num ingress_gateway_metadata
        ingress_gateway_path_segment_bucket_num ingress_gateway_pool_size
        ingress_gateway_shm_config ingress_gateway_update_interval iwrr limit_req_whitelist
        memcached_upstream_tries multi proxy_enable_ntls proxy_rcvbuf_size proxy_sndbuf_size
        proxy_ssl_enc_certificate proxy_ssl_enc_certificate_key proxy_ssl_sign_certificate
        proxy_ssl_sign_certificate_key proxy_upstream_tries req_status req_status_bypass
        req_status_lazy req_status_show req_status_show_field req_status_zone
        req_status_zone_add_indicator req_status_zone_key_length req_status_zone_recycle
        request_time_cache resolver_file retry_cached_connection rr_discarded_range
        scgi_upstream_tries server_admin server_info server_tag session_sticky
        session_sticky_header session_sticky_hide_cookie slab_stat slice_arg_begin slice_arg_end
        slice_footer slice_footer_last slice_header slice_header_first ssl_async
        ssl_enc_certificate ssl_enc_certificate_key ssl_sign_certificate
        ssl_sign_certificate_key ssl_verify_client_exception sysguard sysguard_cpu
        sysguard_interval sysguard_load sysguard_log_level sysguard_mem sysguard_mode
        sysguard_rt tair_timeout tfs_block_cache_zone tfs_body_buffer_size tfs_buffer_size
        tfs_connect_timeout tfs_enable_remote_block_cache tfs_keepalive tfs_log tfs_pass
        tfs_read_timeout tfs_send_lowat tfs_send_timeout tfs_upstream trim trim_css trim_js
        trim_types upstream_change_no_server_status user_agent uwsgi_enable_ntls
        uwsgi_ssl_enc_certificate uwsgi_ssl_enc_certificate_key uwsgi_ssl_sign_certificate
        uwsgi_ssl_sign_certificate_key uwsgi_upstream_tries vnswrr xquic_ack_frequency
        xquic_anti_amplification_limit xquic_cid_route xquic_congestion_control
        xquic_conn_hash_size xquic_enable_fec xquic_enable_keylog
        xquic_enable_marking_reinjection xquic_enable_mempool_protection xquic_enable_multipath
        xquic_enable_pmtud xquic_enable_qlog_event xquic_fec_blk_log_mod xquic_fec_code_rate
        xquic_fec_conn_queue_rpr_timeout xquic_fec_decoder_scheme xquic_fec_encoder_scheme
        xquic_fec_log_on xquic_fec_mp_mode xquic_fec_packet_mask_mode xquic_fec_stream_level
        xquic_hash_conflict_threshold xquic_health_check_file xquic_idle_time_out
        xquic_init_cwnd_pkt xquic_init_pkt_out_size xquic_init_pto_us xquic_init_rtt_us
        xquic_intercom_socket_rcvbuf xquic_intercom_socket_sndbuf xquic_keyupdate_pkt_threshold
        xquic_log_file xquic_log_level xquic_manually_send xquic_max_concurrent_connection_cnt
        xquic_max_cps xquic_max_qps xquic_max_streams_bidi xquic_max_streams_uni
        xquic_min_cwnd_pkt xquic_mp_enable_reinjection xquic_mp_sched_bw_Bps_thr
        xquic_mp_sched_loss_percent_high xquic_mp_sched_loss_percent_low xquic_mp_sched_pto_thr
        xquic_mp_sched_rtt_thr_high xquic_mp_sched_rtt_thr_low xquic_multipath_scheduler
        xquic_pacing xquic_path_unreachable_pto_count xquic_pmtud_probing_interval
        xquic_probing_pkt_out_size xquic_qlog_event_importance xquic_qpack_compat_duplicate
        xquic_qpack_decoder_dynamic_table_size xquic_qpack_encoder_dynamic_table_size
        xquic_reinj_deadline_lower_bound xquic_reinj_flexible_deadline_srtt_factor
        xquic_reinj_hard_deadline xquic_reinjection_control xquic_server_id_length
        xquic_server_id_offset xquic_sndq_packets_used_max xquic_socket_rcvbuf
        xquic_socket_sndbuf xquic_ssl_certificate xquic_ssl_certificate_key
        xquic_ssl_session_ticket_key xquic_standby_path_probe_timeout
        xquic_stateless_reset_token_key xquic_status xquic_streams_index_size
        xquic_symbol_number_per_block xquic_token_key xquic_token_key_file
        xquic_use_new_udp_hash xquic_use_smaller_pto xquic_worker_id_offset
      `,
      stream: `
        enable_ntls multi proxy_enable_ntls proxy_ssl_enc_certificate
        proxy_ssl_enc_certificate_key proxy_ssl_sign_certificate proxy_ssl_sign_certificate_key
        ssl_enc_certificate ssl_enc_certificate_key ssl_sign_certificate
        ssl_sign_certificate_key ssl_sni_force
      `,
      own: `
        count delay_start priority process
      `,
    },
  },
  {
    family: 'Angie',
    kind: 'nginx',
    source: 'webserver-llc/angie at f8cbca8 (2026-08-07, 28 commits after Angie-1.12.1)',
    names: {
      http: `
        acme acme_client acme_client_path acme_dns_port acme_dns_ttl acme_hook acme_http_port
        acme_max_response_size api_config_files auto_redirect client docker_endpoint
        docker_max_object_size doh_bind doh_buffer_size doh_connect_timeout doh_max_size
        doh_next_upstream doh_next_upstream_timeout doh_next_upstream_tries doh_pass
        doh_read_timeout doh_send_timeout doh_socket_keepalive doh_transport error_log_user_tag
        fastcgi_connection_drop goto grpc_connection_drop http3_max_table_capacity
        image_filter_avif_quality image_filter_heic_quality metric metric_complex_zone
        metric_zone prometheus prometheus_template proxy_connection_drop proxy_http3_hq
        proxy_http3_max_concurrent_streams proxy_http3_max_table_capacity
        proxy_http3_stream_buffer_size proxy_quic_active_connection_id_limit proxy_quic_gso
        proxy_quic_host_key proxy_ssl_keylog_file proxy_ssl_ntls response_time_factor
        scgi_connection_drop ssl_encrypted_hello_key ssl_keylog_file ssl_ntls sticky_secret
        sticky_strict time_format uwsgi_connection_drop
      `,
      stream: `
        acme error_log_user_tag metric metric_complex_zone metric_zone proxy_connection_drop
        proxy_protocol_tlv proxy_protocol_version proxy_ssl_keylog_file proxy_ssl_ntls
        rdp_preread response_time_factor ssl_encrypted_hello_key ssl_keylog_file ssl_ntls
        sticky_secret sticky_strict time_format
      `,
      mail: `
        error_log_user_tag max_commands
      `,
    },
  },
  {
    family: 'freenginx',
    kind: 'nginx',
    source: 'freenginx/nginx at fecd071 (2024-06-25, 8 commits after release-1.27.1)',
    names: {
      mail: `
        max_commands
      `,
    },
  },
  {
    family: 'NGINX Plus',
    kind: 'plus',
    source:
      'nginx/nginx-go-crossplane v0.4.89 (11d0d6b), analyze_nplus_latest_directives.gen.go; nginx.org ' +
      '(3924a7f): more contexts, and the older status_format and upstream_conf',
    names: {
      main: `
        mgmt
      `,
      events: `
        stall_threshold
      `,
      http: `
        api auth_jwt auth_jwt_claim_set auth_jwt_header_set auth_jwt_key_cache auth_jwt_key_file
        auth_jwt_key_request auth_jwt_leeway auth_jwt_require auth_jwt_type auth_oidc
        auth_require error_log_tag f4f f4f_buffer_size fastcgi_allow_upstream
        fastcgi_bind_dynamic fastcgi_cache_purge fastcgi_request_dynamic grpc_allow_upstream
        grpc_bind_dynamic grpc_request_dynamic grpc_ssl_key_log health_check hls hls_buffers
        hls_forward_args hls_fragment hls_mp4_buffer_size hls_mp4_max_buffer_size
        internal_redirect keyval keyval_zone match memcached_allow_upstream
        memcached_bind_dynamic mp4_limit_rate mp4_limit_rate_after ntlm num_map oidc_provider
        proxy_allow_upstream proxy_bind_dynamic proxy_cache_purge proxy_request_dynamic
        proxy_ssl_key_log queue scgi_allow_upstream scgi_bind_dynamic scgi_cache_purge
        scgi_request_dynamic session_log session_log_format session_log_zone ssl_key_log state
        status status_format status_zone tunnel_allow_upstream tunnel_bind_dynamic upstream_conf
        uwsgi_allow_upstream uwsgi_bind_dynamic uwsgi_cache_purge uwsgi_request_dynamic
        uwsgi_ssl_key_log
      `,
      stream: `
        health_check health_check_timeout keyval keyval_zone match mqtt mqtt_buffers
        mqtt_preread mqtt_rewrite_buffer_size mqtt_set_connect num_map proxy_bind_dynamic
        proxy_session_drop proxy_ssl_key_log ssl_key_log state status_zone zone_sync
        zone_sync_buffers zone_sync_connect_retry_interval zone_sync_connect_timeout
        zone_sync_interval zone_sync_recv_buffer_size zone_sync_server zone_sync_ssl
        zone_sync_ssl_certificate zone_sync_ssl_certificate_key zone_sync_ssl_ciphers
        zone_sync_ssl_conf_command zone_sync_ssl_crl zone_sync_ssl_name
        zone_sync_ssl_password_file zone_sync_ssl_protocols zone_sync_ssl_server_name
        zone_sync_ssl_trusted_certificate zone_sync_ssl_verify zone_sync_ssl_verify_depth
        zone_sync_timeout
      `,
      own: `
        client_id client_secret config_url connect_timeout cookie_name enforce_initial_report
        extra_auth_args frontchannel_logout_uri issuer license_token logout_token_hint
        logout_uri pkce post_logout_uri proxy_password proxy_username read_timeout redirect_uri
        scope session_store session_timeout ssl_name ssl_server_name ssl_verify state_path
        status usage_report userinfo uuid_file
      `,
    },
  },
  {
    family: 'NGINX App Protect WAF',
    kind: 'plus',
    source: 'nginx/nginx-go-crossplane v0.4.89 (11d0d6b), analyze_appProtectWAFv4/v5_directives.gen.go',
    names: {
      http: `
        app_protect_app_name app_protect_compressed_requests_action
        app_protect_config_set_timeout app_protect_cookie_seed app_protect_cpu_thresholds
        app_protect_custom_log_attribute app_protect_enable app_protect_enforcer_address
        app_protect_enforcer_memory_limit_mb app_protect_failure_mode_action
        app_protect_global_settings app_protect_logging_str
        app_protect_physical_memory_util_thresholds app_protect_policy_file
        app_protect_reconnect_period_seconds app_protect_request_buffer_overflow_action
        app_protect_response_enforcement_disable app_protect_security_log
        app_protect_security_log_enable app_protect_streaming_buffer_watermarks
        app_protect_user_defined_signatures
      `,
    },
  },
  {
    family: "OpenResty's lua-nginx-module",
    kind: 'module',
    source: 'openresty/lua-nginx-module at bbed32a (2026-06-28, tag v0.10.32rc2)',
    modules: `
      ngx_http_lua_module
    `,
    names: {
      http: `
        access_by_lua access_by_lua_block access_by_lua_file access_by_lua_no_postpone
        balancer_by_lua_block balancer_by_lua_file balancer_keepalive body_filter_by_lua
        body_filter_by_lua_block body_filter_by_lua_file content_by_lua content_by_lua_block
        content_by_lua_file exit_worker_by_lua_block exit_worker_by_lua_file
        header_filter_by_lua header_filter_by_lua_block header_filter_by_lua_file init_by_lua
        init_by_lua_block init_by_lua_file init_worker_by_lua init_worker_by_lua_block
        init_worker_by_lua_file log_by_lua log_by_lua_block log_by_lua_file
        lua_capture_error_log lua_check_client_abort lua_code_cache lua_http10_buffering
        lua_load_resty_core lua_malloc_trim lua_max_pending_timers lua_max_running_timers
        lua_need_request_body lua_package_cpath lua_package_path lua_regex_cache_max_entries
        lua_regex_match_limit lua_sa_restart lua_shared_dict lua_socket_buffer_size
        lua_socket_connect_timeout lua_socket_keepalive_timeout lua_socket_log_errors
        lua_socket_pool_size lua_socket_read_timeout lua_socket_send_lowat
        lua_socket_send_timeout lua_ssl_certificate lua_ssl_certificate_key lua_ssl_ciphers
        lua_ssl_conf_command lua_ssl_crl lua_ssl_key_log lua_ssl_protocols
        lua_ssl_trusted_certificate lua_ssl_verify_depth lua_thread_cache_max_entries
        lua_transform_underscores_in_response_headers lua_upstream_skip_openssl_default_verify
        lua_use_default_type lua_worker_thread_vm_pool_size precontent_by_lua_block
        precontent_by_lua_file precontent_by_lua_no_postpone proxy_ssl_certificate_by_lua_block
        proxy_ssl_certificate_by_lua_file proxy_ssl_verify_by_lua_block
        proxy_ssl_verify_by_lua_file rewrite_by_lua rewrite_by_lua_block rewrite_by_lua_file
        rewrite_by_lua_no_postpone server_rewrite_by_lua_block server_rewrite_by_lua_file
        set_by_lua set_by_lua_block set_by_lua_file ssl_certificate_by_lua_block
        ssl_certificate_by_lua_file ssl_client_hello_by_lua_block ssl_client_hello_by_lua_file
        ssl_session_fetch_by_lua_block ssl_session_fetch_by_lua_file
        ssl_session_store_by_lua_block ssl_session_store_by_lua_file
      `,
    },
  },
  {
    family: "OpenResty's stream-lua-nginx-module",
    kind: 'module',
    source: 'openresty/stream-lua-nginx-module at 9344b4d (2026-07-17, 2 commits after v0.0.20rc2)',
    modules: `
      ngx_stream_lua_module
    `,
    names: {
      stream: `
        balancer_by_lua_block balancer_by_lua_file content_by_lua content_by_lua_block
        content_by_lua_file init_by_lua init_by_lua_block init_by_lua_file init_worker_by_lua
        init_worker_by_lua_block init_worker_by_lua_file log_by_lua_block log_by_lua_file
        lua_add_variable lua_capture_error_log lua_check_client_abort lua_code_cache
        lua_load_resty_core lua_malloc_trim lua_max_pending_timers lua_max_running_timers
        lua_package_cpath lua_package_path lua_regex_cache_max_entries lua_regex_match_limit
        lua_sa_restart lua_shared_dict lua_socket_buffer_size lua_socket_connect_timeout
        lua_socket_keepalive_timeout lua_socket_log_errors lua_socket_pool_size
        lua_socket_read_timeout lua_socket_send_lowat lua_socket_send_timeout
        lua_ssl_certificate lua_ssl_certificate_key lua_ssl_ciphers lua_ssl_conf_command
        lua_ssl_crl lua_ssl_key_log lua_ssl_protocols lua_ssl_trusted_certificate
        lua_ssl_verify_depth lua_upstream_skip_openssl_default_verify preread_by_lua_block
        preread_by_lua_file preread_by_lua_no_postpone proxy_ssl_certificate_by_lua_block
        proxy_ssl_certificate_by_lua_file proxy_ssl_verify_by_lua_block
        proxy_ssl_verify_by_lua_file ssl_certificate_by_lua_block ssl_certificate_by_lua_file
        ssl_client_hello_by_lua_block ssl_client_hello_by_lua_file
      `,
    },
  },
  {
    family: 'headers-more',
    kind: 'module',
    source: 'openresty/headers-more-nginx-module at e76a513 (2025-12-18, 7 commits after v0.39)',
    modules: `
      ngx_http_headers_more_filter_module
    `,
    names: {
      http: `
        more_clear_headers more_clear_input_headers more_set_headers more_set_input_headers
      `,
    },
  },
  {
    family: 'echo',
    kind: 'module',
    source: 'openresty/echo-nginx-module at 1148fe7 (2026-07-17, 1 commit after v0.65)',
    modules: `
      ngx_http_echo_module
    `,
    names: {
      http: `
        echo echo_abort_parent echo_after_body echo_before_body echo_blocking_sleep
        echo_duplicate echo_end echo_exec echo_flush echo_foreach_split echo_location
        echo_location_async echo_read_request_body echo_request_body echo_reset_timer echo_sleep
        echo_status echo_subrequest echo_subrequest_async
      `,
    },
  },
  {
    family: 'set-misc',
    kind: 'module',
    source: 'openresty/set-misc-nginx-module at fdad936 (2025-12-18, 10 commits after v0.33)',
    modules: `
      ngx_http_set_misc_module
    `,
    names: {
      http: `
        set_base32_alphabet set_base32_padding set_decode_base32 set_decode_base64
        set_decode_base64url set_decode_hex set_encode_base32 set_encode_base64
        set_encode_base64url set_encode_hex set_escape_uri set_formatted_gmt_time
        set_formatted_local_time set_hashed_upstream set_hmac_sha1 set_hmac_sha256 set_if_empty
        set_local_today set_md5 set_misc_base32_padding set_quote_json_str set_quote_pgsql_str
        set_quote_sql_str set_random set_rotate set_secure_random_alphanum
        set_secure_random_lcalpha set_sha1 set_unescape_uri
      `,
    },
    // Every name but the three settings (set_misc_base32_padding, set_base32_padding,
    // set_base32_alphabet) is an ndk_set_var handler in src/ngx_http_set_misc_module.c.
    rewritePhase: `
      set_decode_base32 set_decode_base64 set_decode_base64url set_decode_hex set_encode_base32
      set_encode_base64 set_encode_base64url set_encode_hex set_escape_uri set_formatted_gmt_time
      set_formatted_local_time set_hashed_upstream set_hmac_sha1 set_hmac_sha256 set_if_empty
      set_local_today set_md5 set_quote_json_str set_quote_pgsql_str set_quote_sql_str set_random
      set_rotate set_secure_random_alphanum set_secure_random_lcalpha set_sha1 set_unescape_uri
    `,
  },
  {
    family: 'srcache',
    kind: 'module',
    source: 'openresty/srcache-nginx-module at 33e5f13 (2025-12-18, 3 commits after v0.33)',
    modules: `
      ngx_http_srcache_filter_module
    `,
    names: {
      http: `
        srcache_buffer srcache_default_expire srcache_fetch srcache_fetch_skip
        srcache_header_buffer_size srcache_ignore_content_encoding srcache_max_expire
        srcache_methods srcache_request_cache_control srcache_response_cache_control
        srcache_store srcache_store_hide_header srcache_store_max_size srcache_store_no_cache
        srcache_store_no_store srcache_store_pass_header srcache_store_private
        srcache_store_ranges srcache_store_skip srcache_store_statuses
      `,
    },
  },
  {
    family: 'memc',
    kind: 'module',
    source: 'openresty/memc-nginx-module at e18ec73 (2025-12-18, 4 commits after v0.20)',
    modules: `
      ngx_http_memc_module
    `,
    names: {
      http: `
        memc_buffer_size memc_cmds_allowed memc_connect_timeout memc_flags_to_last_modified
        memc_ignore_client_abort memc_next_upstream memc_pass memc_read_timeout
        memc_send_timeout memc_upstream_fail_timeout memc_upstream_max_fails
      `,
    },
  },
  {
    family: 'redis2',
    kind: 'module',
    source: 'openresty/redis2-nginx-module at 197f3e2 (2025-12-18, 13 commits after v0.15)',
    modules: `
      ngx_http_redis2_module
    `,
    names: {
      http: `
        redis2_bind redis2_buffer_size redis2_connect_timeout redis2_literal_raw_query
        redis2_next_upstream redis2_pass redis2_query redis2_raw_queries redis2_raw_query
        redis2_read_timeout redis2_send_timeout
      `,
    },
  },
  {
    family: 'encrypted-session',
    kind: 'module',
    source: 'openresty/encrypted-session-nginx-module at 7ffe4ec (2024-08-17, 4 commits after v0.09)',
    modules: `
      ngx_http_encrypted_session_module
    `,
    names: {
      http: `
        encrypted_session_expires encrypted_session_iv encrypted_session_key set_decrypt_session
        set_encrypt_session
      `,
    },
  },
  {
    family: 'array-var',
    kind: 'module',
    source: 'openresty/array-var-nginx-module at aa6b058 (2024-08-17, 2 commits after v0.06)',
    modules: `
      ngx_http_array_var_module
    `,
    names: {
      http: `
        array_join array_map array_map_op array_split
      `,
    },
  },
  {
    family: 'xss',
    kind: 'module',
    source: 'openresty/xss-nginx-module at 0e77f38 (2025-12-18, 1 commit after 0.07)',
    modules: `
      ngx_http_xss_filter_module
    `,
    names: {
      http: `
        xss_callback_arg xss_check_status xss_get xss_input_types xss_output_type
        xss_override_status
      `,
    },
  },
  {
    family: 'rds-json',
    kind: 'module',
    source: 'openresty/rds-json-nginx-module at e6517b9 (2024-08-17, 2 commits after v0.17)',
    modules: `
      ngx_http_rds_json_filter_module
    `,
    names: {
      http: `
        rds_json rds_json_buffer_size rds_json_content_type rds_json_errcode_key
        rds_json_errstr_key rds_json_format rds_json_ret rds_json_root rds_json_success_property
        rds_json_user_property
      `,
    },
  },
  {
    family: 'rds-csv',
    kind: 'module',
    source: 'openresty/rds-csv-nginx-module at 6a90686 (2024-08-17, 3 commits after v0.09)',
    modules: `
      ngx_http_rds_csv_filter_module
    `,
    names: {
      http: `
        rds_csv rds_csv_buffer_size rds_csv_content_type rds_csv_field_name_header
        rds_csv_field_separator rds_csv_row_terminator
      `,
    },
  },
  {
    family: 'drizzle',
    kind: 'module',
    source: 'openresty/drizzle-nginx-module at 3a72515 (2026-05-14, 2 commits after v0.1.13)',
    modules: `
      ngx_http_drizzle_module
    `,
    names: {
      http: `
        drizzle_buffer_size drizzle_connect_timeout drizzle_dbname drizzle_keepalive
        drizzle_module_header drizzle_pass drizzle_query drizzle_recv_cols_timeout
        drizzle_recv_rows_timeout drizzle_send_query_timeout drizzle_server drizzle_status
      `,
    },
  },
  {
    family: 'replace-filter',
    kind: 'module',
    source: 'openresty/replace-filter-nginx-module at 0b432c6 (2023-08-12, 32 commits after v0.01rc5)',
    modules: `
      ngx_http_replace_filter_module
    `,
    names: {
      http: `
        replace_filter replace_filter_last_modified replace_filter_max_buffered_size
        replace_filter_skip replace_filter_types
      `,
    },
  },
  {
    family: 'form-input',
    kind: 'module',
    source: 'calio/form-input-nginx-module at 2c94e74 (2017-10-27, 3 commits after v0.12)',
    modules: `
      ngx_http_form_input_module
    `,
    names: {
      http: `
        set_form_input set_form_input_multi
      `,
    },
  },
  {
    family: 'iconv',
    kind: 'module',
    source: 'calio/iconv-nginx-module at 9d5d79d (2017-10-27, 3 commits after v0.14)',
    modules: `
      ngx_http_iconv_module
    `,
    names: {
      http: `
        iconv_buffer_size iconv_filter set_iconv
      `,
    },
  },
  {
    family: 'ngx_postgres',
    kind: 'module',
    source: 'FRiCKLE/ngx_postgres at 7950a25 (2015-07-04, tag 1.0rc7)',
    modules: `
      ngx_postgres_module
    `,
    names: {
      http: `
        postgres_connect_timeout postgres_escape postgres_keepalive postgres_output
        postgres_pass postgres_query postgres_result_timeout postgres_rewrite postgres_server
        postgres_set
      `,
    },
  },
  {
    family: 'brotli',
    kind: 'module',
    source: 'google/ngx_brotli at a71f931 (2023-10-09, 9 commits after v1.0.0rc)',
    modules: `
      ngx_http_brotli_filter_module ngx_http_brotli_static_module
    `,
    names: {
      http: `
        brotli brotli_buffers brotli_comp_level brotli_min_length brotli_static brotli_types
        brotli_window
      `,
    },
  },
  {
    family: 'zstd',
    kind: 'module',
    source: 'tokers/zstd-nginx-module at 057a7d3 (2025-06-23, 2 commits after 0.1.1)',
    modules: `
      ngx_http_zstd_filter_module ngx_http_zstd_static_module
    `,
    names: {
      http: `
        zstd zstd_buffers zstd_comp_level zstd_dict_file zstd_min_length zstd_static zstd_types
      `,
    },
  },
  {
    family: 'geoip2',
    kind: 'module',
    source: 'leev/ngx_http_geoip2_module at 445df24 (2024-04-02, 4 commits after 3.4)',
    modules: `
      ngx_http_geoip2_module ngx_stream_geoip2_module
    `,
    names: {
      http: `
        geoip2 geoip2_proxy geoip2_proxy_recursive
      `,
      stream: `
        geoip2
      `,
    },
  },
  {
    family: 'VTS (vhost traffic status)',
    kind: 'module',
    source: 'vozlt/nginx-module-vts at affcaf8 (2026-08-16, 63 commits after v0.2.7)',
    modules: `
      ngx_http_vhost_traffic_status_module
    `,
    names: {
      http: `
        vhost_traffic_status vhost_traffic_status_average_method
        vhost_traffic_status_bypass_limit vhost_traffic_status_bypass_stats
        vhost_traffic_status_display vhost_traffic_status_display_format
        vhost_traffic_status_display_jsonp vhost_traffic_status_display_sum_key
        vhost_traffic_status_dump vhost_traffic_status_filter
        vhost_traffic_status_filter_by_host vhost_traffic_status_filter_by_set_key
        vhost_traffic_status_filter_check_duplicate vhost_traffic_status_filter_max_node
        vhost_traffic_status_histogram_buckets vhost_traffic_status_ignore_status
        vhost_traffic_status_limit vhost_traffic_status_limit_check_duplicate
        vhost_traffic_status_limit_traffic vhost_traffic_status_limit_traffic_by_set_key
        vhost_traffic_status_measure_status_codes vhost_traffic_status_set_by_filter
        vhost_traffic_status_stats_by_upstream vhost_traffic_status_zone
      `,
    },
  },
  {
    family: 'stream traffic status (http side)',
    kind: 'module',
    source: 'vozlt/nginx-module-sts at 3c10d42 (2022-09-26, 9 commits after v0.1.1)',
    modules: `
      ngx_http_stream_server_traffic_status_module
    `,
    names: {
      http: `
        stream_server_traffic_status stream_server_traffic_status_average_method
        stream_server_traffic_status_display stream_server_traffic_status_display_format
        stream_server_traffic_status_display_jsonp stream_server_traffic_status_zone
      `,
    },
  },
  {
    family: 'stream traffic status',
    kind: 'module',
    source: 'vozlt/nginx-module-stream-sts at a60cd2f (2022-09-16, 6 commits after v0.1.1)',
    modules: `
      ngx_stream_server_traffic_status_module
    `,
    names: {
      stream: `
        server_traffic_status server_traffic_status_average_method server_traffic_status_filter
        server_traffic_status_filter_by_set_key server_traffic_status_filter_check_duplicate
        server_traffic_status_histogram_buckets server_traffic_status_limit
        server_traffic_status_limit_check_duplicate server_traffic_status_limit_traffic
        server_traffic_status_limit_traffic_by_set_key server_traffic_status_zone
      `,
    },
  },
  {
    family: 'ModSecurity-nginx',
    kind: 'module',
    source: 'owasp-modsecurity/ModSecurity-nginx at 86b6709 (2025-05-05, 39 commits after v1.0.3)',
    modules: `
      ngx_http_modsecurity_module
    `,
    names: {
      http: `
        modsecurity modsecurity_rules modsecurity_rules_file modsecurity_rules_remote
        modsecurity_transaction_id
      `,
    },
  },
  {
    family: 'NAXSI',
    kind: 'module',
    source: 'wargio/naxsi at 69ed59a (2026-04-06, 49 commits after 1.7)',
    modules: `
      ngx_http_naxsi_module
    `,
    names: {
      http: `
        BasicRule CheckRule DeniedUrl IgnoreCIDR IgnoreIP LearningMode LibInjectionSql
        LibInjectionXss MainRule NaxsiLogFile SecRulesDisabled SecRulesEnabled basic_rule
        check_rule denied_url ignore_cidr ignore_ip learning_mode libinjection_sql
        libinjection_xss main_rule naxsi_log rules_disabled rules_enabled
      `,
    },
  },
  {
    family: 'ngx_waf',
    kind: 'module',
    source: 'ADD-SP/ngx_waf at 458b6a6 (2025-01-25, tag v6.1.10)',
    modules: `
      ngx_http_waf_module
    `,
    names: {
      http: `
        waf waf_cache waf_cc_deny waf_http_status waf_mode waf_priority waf_rule_path
        waf_under_attack
      `,
    },
  },
  {
    family: 'testcookie',
    kind: 'module',
    source: 'kyprizel/testcookie-nginx-module at 7d263d4 (2026-05-18)',
    modules: `
      ngx_http_testcookie_access_module
    `,
    names: {
      http: `
        testcookie testcookie_arg testcookie_deny_keepalive testcookie_domain testcookie_expires
        testcookie_fallback testcookie_get_only testcookie_httponly_flag
        testcookie_https_location testcookie_internal testcookie_max_attempts testcookie_name
        testcookie_p3p testcookie_pass testcookie_path testcookie_port_in_redirect
        testcookie_redirect_via_refresh testcookie_refresh_encrypt_cookie
        testcookie_refresh_encrypt_cookie_iv testcookie_refresh_encrypt_cookie_key
        testcookie_refresh_status testcookie_refresh_template testcookie_samesite
        testcookie_secret testcookie_secure_flag testcookie_session testcookie_whitelist
      `,
    },
  },
  {
    family: 'Passenger',
    kind: 'module',
    source:
      'phusion/passenger at 080171e (2024-10-21, 153 commits after release-6.0.23), nginx/config_options.rb',
    modules: `
      ngx_http_passenger_module
    `,
    names: {
      http: `
        passenger_abort_on_startup_error passenger_abort_websockets_on_process_shutdown
        passenger_admin_panel_auth_type passenger_admin_panel_password passenger_admin_panel_url
        passenger_admin_panel_username passenger_analytics_log_group
        passenger_analytics_log_user passenger_anonymous_telemetry_proxy passenger_app_env
        passenger_app_file_descriptor_ulimit passenger_app_group_name passenger_app_log_file
        passenger_app_rights passenger_app_root passenger_app_start_command passenger_app_type
        passenger_base_uri passenger_buffer_response passenger_buffer_size
        passenger_buffer_upload passenger_buffers passenger_busy_buffers_size
        passenger_concurrency_model passenger_core_file_descriptor_ulimit passenger_ctl
        passenger_custom_error_page passenger_data_buffer_dir passenger_debug_log_file
        passenger_debugger passenger_default_group passenger_default_user
        passenger_direct_instance_request_address passenger_disable_anonymous_telemetry
        passenger_disable_log_prefix passenger_disable_security_update_check
        passenger_document_root passenger_dump_config_manifest passenger_enabled
        passenger_env_var passenger_file_descriptor_log_file passenger_fly_with
        passenger_force_max_concurrent_requests_per_process passenger_friendly_error_pages
        passenger_group passenger_headers_hash_bucket_size passenger_headers_hash_max_size
        passenger_ignore_client_abort passenger_ignore_headers passenger_instance_registry_dir
        passenger_intercept_errors passenger_load_shell_envvars passenger_log_file
        passenger_log_level passenger_max_instances passenger_max_instances_per_app
        passenger_max_pool_size passenger_max_preloader_idle_time
        passenger_max_request_queue_size passenger_max_request_queue_time
        passenger_max_request_time passenger_max_requests passenger_memory_limit
        passenger_meteor_app_settings passenger_min_instances passenger_monitor_log_file
        passenger_nodejs passenger_pass_header passenger_pool_idle_time passenger_pre_start
        passenger_preload_bundler passenger_python passenger_read_timeout
        passenger_request_buffering passenger_request_queue_overflow_status_code
        passenger_resist_deployment_errors passenger_response_buffer_high_watermark
        passenger_restart_dir passenger_rolling_restarts passenger_root passenger_ruby
        passenger_security_update_check_proxy passenger_set_header
        passenger_show_version_in_header passenger_socket_backlog passenger_spawn_dir
        passenger_spawn_exception_status_code passenger_spawn_method passenger_start_timeout
        passenger_startup_file passenger_stat_throttle_rate passenger_sticky_sessions
        passenger_sticky_sessions_cookie_attributes passenger_sticky_sessions_cookie_name
        passenger_temp_path passenger_thread_count passenger_turbocaching
        passenger_use_global_queue passenger_user passenger_user_switching
        passenger_vary_turbocache_by_cookie rack_env rails_app_spawner_idle_time rails_env
        rails_framework_spawner_idle_time rails_spawn_method union_station_filter
        union_station_gateway_address union_station_gateway_cert union_station_gateway_port
        union_station_key union_station_proxy_address union_station_support
      `,
    },
  },
  {
    family: 'RTMP',
    kind: 'module',
    source: 'arut/nginx-rtmp-module at 6c7719d (2024-12-24, 4 commits after v1.2.2)',
    modules: `
      ngx_rtmp_access_module ngx_rtmp_auto_push_index_module ngx_rtmp_auto_push_module
      ngx_rtmp_cmd_module ngx_rtmp_codec_module ngx_rtmp_control_module ngx_rtmp_core_module
      ngx_rtmp_dash_module ngx_rtmp_exec_module ngx_rtmp_flv_module ngx_rtmp_hls_module
      ngx_rtmp_limit_module ngx_rtmp_live_module ngx_rtmp_log_module ngx_rtmp_module
      ngx_rtmp_mp4_module ngx_rtmp_netcall_module ngx_rtmp_notify_module ngx_rtmp_play_module
      ngx_rtmp_record_module ngx_rtmp_relay_module ngx_rtmp_stat_module
    `,
    names: {
      main: `
        rtmp rtmp_auto_push rtmp_auto_push_reconnect rtmp_socket_dir
      `,
      http: `
        rtmp_control rtmp_stat rtmp_stat_stylesheet
      `,
      own: `
        ack_window application buffer buflen busy chunk_size dash dash_cleanup dash_fragment
        dash_nested dash_path dash_playlist_length drop_idle_publisher exec exec_kill_signal
        exec_options exec_play exec_play_done exec_publish exec_publish_done exec_pull exec_push
        exec_record_done exec_static hls hls_audio_buffer_size hls_base_url hls_cleanup
        hls_continuous hls_fragment hls_fragment_naming hls_fragment_naming_granularity
        hls_fragment_slicing hls_fragments_per_key hls_key_path hls_key_url hls_keys
        hls_max_audio_delay hls_max_fragment hls_muxdelay hls_nested hls_path
        hls_playlist_length hls_sync hls_type hls_variant idle_streams interleave live
        max_connections max_message max_streams meta netcall_buffer netcall_timeout
        notify_method notify_relay_redirect notify_update_strict notify_update_timeout
        on_connect on_disconnect on_done on_play on_play_done on_publish on_publish_done
        on_record_done on_update out_cork out_queue ping ping_timeout play play_local_path
        play_restart play_temp_path play_time_fix publish_notify publish_time_fix pull
        pull_reconnect push push_reconnect record record_append record_interval record_lock
        record_max_frames record_max_size record_notify record_path record_suffix record_unique
        recorder relay_buffer respawn respawn_timeout session_relay so_keepalive stream_buckets
        sync wait_key wait_video
      `,
    },
  },
  {
    family: 'http-flv (RTMP)',
    kind: 'module',
    source: 'winshining/nginx-http-flv-module at 38ca192 (2026-06-15, 8 commits after v1.2.13)',
    modules: `
      ngx_http_flv_live_module ngx_rtmp_access_module ngx_rtmp_auto_push_index_module
      ngx_rtmp_auto_push_module ngx_rtmp_cmd_module ngx_rtmp_codec_module
      ngx_rtmp_control_module ngx_rtmp_core_module ngx_rtmp_dash_module ngx_rtmp_exec_module
      ngx_rtmp_flv_live_index_module ngx_rtmp_flv_module ngx_rtmp_gop_cache_module
      ngx_rtmp_hls_module ngx_rtmp_limit_module ngx_rtmp_live_module ngx_rtmp_log_module
      ngx_rtmp_module ngx_rtmp_mp4_module ngx_rtmp_netcall_module ngx_rtmp_notify_module
      ngx_rtmp_play_module ngx_rtmp_record_module ngx_rtmp_relay_module ngx_rtmp_stat_module
    `,
    names: {
      main: `
        rtmp rtmp_auto_push rtmp_auto_push_reconnect rtmp_socket_dir
      `,
      http: `
        flv_live rtmp_control rtmp_stat rtmp_stat_format rtmp_stat_stylesheet
      `,
      own: `
        ack_window application buffer buflen busy chunk_size dash dash_cleanup dash_fragment
        dash_nested dash_path dash_playlist_length drop_idle_publisher exec exec_kill_signal
        exec_options exec_play exec_play_done exec_publish exec_publish_done exec_pull exec_push
        exec_record_done exec_static gop_cache gop_max_audio_count gop_max_frame_count
        gop_max_video_count hls hls_audio_buffer_size hls_base_url hls_cleanup hls_continuous
        hls_dir_access hls_fragment hls_fragment_naming hls_fragment_naming_granularity
        hls_fragment_slicing hls_fragments_per_key hls_key_path hls_key_url hls_keys
        hls_max_audio_delay hls_max_fragment hls_muxdelay hls_nested hls_nested_index_filename
        hls_path hls_playlist_length hls_sync hls_type hls_variant idle_streams interleave live
        log_interval log_size max_connections max_message max_streams meta netcall_buffer
        netcall_timeout notify_method notify_no_resolve notify_relay_redirect
        notify_update_strict notify_update_timeout on_connect on_disconnect on_done on_play
        on_play_done on_publish on_publish_done on_record_done on_update out_cork out_queue ping
        ping_timeout play play_local_path play_restart play_temp_path play_time_fix
        publish_notify publish_time_fix pull pull_reconnect push push_reconnect record
        record_append record_interval record_lock record_max_frames record_max_size
        record_notify record_path record_suffix record_unique recorder relay_buffer respawn
        respawn_timeout session_relay so_keepalive stream_buckets sync wait_key wait_video
      `,
    },
  },
  {
    family: 'VOD (Kaltura)',
    kind: 'module',
    source: 'kaltura/nginx-vod-module at 26f0687 (2024-03-18, 13 commits after 1.33)',
    modules: `
      ngx_http_vod_module
    `,
    names: {
      http: `
        vod vod_align_segments_to_key_frames vod_apply_dynamic_mapping vod_base_url
        vod_bootstrap_segment_durations vod_cache_buffer_size vod_clip_from_param_name
        vod_clip_to_param_name vod_drm_clear_lead_segment_count vod_drm_enabled
        vod_drm_info_cache vod_drm_max_info_length vod_drm_request_uri vod_drm_single_key
        vod_drm_upstream_location vod_dynamic_clip_map_uri vod_dynamic_mapping_cache
        vod_encryption_iv_seed vod_expires vod_expires_live vod_expires_live_time_dependent
        vod_fallback_upstream_location vod_force_continuous_timestamps
        vod_force_playlist_type_vod vod_force_sequence_index vod_gop_look_ahead
        vod_gop_look_behind vod_ignore_edit_list vod_initial_read_size vod_lang_param_name
        vod_last_modified vod_last_modified_types vod_live_mapping_cache vod_live_response_cache
        vod_live_window_duration vod_manifest_duration_policy
        vod_manifest_segment_durations_mode vod_mapping_cache vod_max_frame_count
        vod_max_frames_size vod_max_mapping_response_size vod_max_metadata_size
        vod_max_upstream_headers_size vod_media_set_map_uri vod_media_set_override_json
        vod_metadata_cache vod_min_single_nalu_per_frame_segment vod_mode vod_multi_uri_suffix
        vod_notification_uri vod_open_file_thread_pool vod_output_buffer_pool
        vod_parse_hdlr_name vod_parse_udta_name vod_path_response_postfix
        vod_path_response_prefix vod_performance_counters vod_proxy_header_name
        vod_proxy_header_value vod_redirect_segments_url vod_remote_upstream_location
        vod_response_cache vod_secret_key vod_segment_count_policy vod_segment_duration
        vod_segment_max_frame_count vod_segments_base_url vod_source_clip_map_uri
        vod_speed_param_name vod_status vod_time_shift_param_name vod_tracks_param_name
        vod_upstream_extra_args vod_upstream_location
      `,
    },
  },
  {
    family: 'nchan',
    kind: 'module',
    source: 'slact/nchan at 9c6909d (2024-09-19, tag v1.3.7)',
    modules: `
      ngx_nchan_module
    `,
    names: {
      http: `
        nchan_access_control_allow_credentials nchan_access_control_allow_origin
        nchan_authorize_request nchan_benchmark nchan_benchmark_channels
        nchan_benchmark_message_padding_bytes nchan_benchmark_messages_per_channel_per_minute
        nchan_benchmark_publisher_distribution nchan_benchmark_subscriber_distribution
        nchan_benchmark_subscribers_per_channel nchan_benchmark_time nchan_channel_event_string
        nchan_channel_events_channel_id nchan_channel_group nchan_channel_group_accounting
        nchan_channel_id nchan_channel_id_split_delimiter nchan_channel_timeout
        nchan_deflate_message_for_websocket nchan_eventsource_event
        nchan_eventsource_ping_comment nchan_eventsource_ping_data nchan_eventsource_ping_event
        nchan_eventsource_ping_interval nchan_group_location nchan_group_max_channels
        nchan_group_max_messages nchan_group_max_messages_disk nchan_group_max_messages_memory
        nchan_group_max_subscribers nchan_longpoll_multipart_response
        nchan_max_channel_id_length nchan_max_channel_subscribers nchan_max_reserved_memory
        nchan_message_buffer_length nchan_message_max_buffer_length nchan_message_temp_path
        nchan_message_timeout nchan_permessage_deflate_compression_level
        nchan_permessage_deflate_compression_memlevel
        nchan_permessage_deflate_compression_strategy
        nchan_permessage_deflate_compression_window nchan_pub_channel_id nchan_publisher
        nchan_publisher_channel_id nchan_publisher_location nchan_publisher_upstream_request
        nchan_pubsub nchan_pubsub_channel_id nchan_pubsub_location
        nchan_redis_accurate_subscriber_count nchan_redis_cluster_check_interval
        nchan_redis_cluster_check_interval_backoff nchan_redis_cluster_check_interval_jitter
        nchan_redis_cluster_check_interval_max nchan_redis_cluster_check_interval_min
        nchan_redis_cluster_connect_timeout nchan_redis_cluster_max_failing_time
        nchan_redis_cluster_recovery_delay nchan_redis_cluster_recovery_delay_backoff
        nchan_redis_cluster_recovery_delay_jitter nchan_redis_cluster_recovery_delay_max
        nchan_redis_cluster_recovery_delay_min nchan_redis_command_timeout
        nchan_redis_connect_timeout nchan_redis_discovered_ip_range_blacklist
        nchan_redis_fakesub_timer_interval nchan_redis_idle_channel_cache_timeout
        nchan_redis_idle_channel_keepalive_backoff nchan_redis_idle_channel_keepalive_jitter
        nchan_redis_idle_channel_keepalive_max nchan_redis_idle_channel_keepalive_min
        nchan_redis_idle_channel_keepalive_safety_margin
        nchan_redis_load_scripts_unconditionally nchan_redis_namespace
        nchan_redis_node_connect_timeout nchan_redis_nostore_fastpublish
        nchan_redis_optimize_target nchan_redis_pass nchan_redis_pass_inheritable
        nchan_redis_password nchan_redis_ping_interval nchan_redis_publish_msgpacked_max_size
        nchan_redis_reconnect_delay nchan_redis_reconnect_delay_backoff
        nchan_redis_reconnect_delay_jitter nchan_redis_reconnect_delay_max
        nchan_redis_reconnect_delay_min nchan_redis_retry_commands
        nchan_redis_retry_commands_max_wait nchan_redis_server nchan_redis_ssl
        nchan_redis_ssl_ciphers nchan_redis_ssl_client_certificate
        nchan_redis_ssl_client_certificate_key nchan_redis_ssl_server_name
        nchan_redis_ssl_trusted_certificate nchan_redis_ssl_trusted_certificate_path
        nchan_redis_ssl_verify_certificate nchan_redis_storage_mode
        nchan_redis_subscribe_weights nchan_redis_tls nchan_redis_tls_ciphers
        nchan_redis_tls_client_certificate nchan_redis_tls_server_name
        nchan_redis_tls_trusted_certificate nchan_redis_tls_trusted_certificate_path
        nchan_redis_tls_verify_certificate nchan_redis_upstream_stats
        nchan_redis_upstream_stats_disconnected_timeout nchan_redis_upstream_stats_enabled
        nchan_redis_url nchan_redis_username nchan_redis_wait_after_connecting
        nchan_shared_memory_size nchan_storage_engine nchan_store_messages nchan_stub_status
        nchan_sub_channel_id nchan_subscribe_existing_channels_only nchan_subscribe_request
        nchan_subscriber nchan_subscriber_channel_id nchan_subscriber_compound_etag_message_id
        nchan_subscriber_first_message nchan_subscriber_http_raw_stream_separator
        nchan_subscriber_info nchan_subscriber_info_string nchan_subscriber_last_message_id
        nchan_subscriber_location nchan_subscriber_message_id_custom_etag_header
        nchan_subscriber_timeout nchan_unsubscribe_request nchan_use_redis
        nchan_websocket_client_heartbeat nchan_websocket_ping_interval
        push_authorized_channels_only push_channel_group push_channel_timeout
        push_max_channel_id_length push_max_channel_subscribers push_max_message_buffer_length
        push_max_reserved_memory push_message_buffer_length push_message_timeout
        push_min_message_buffer_length push_publisher push_store_messages push_subscriber
        push_subscriber_concurrency push_subscriber_timeout
      `,
    },
  },
  {
    family: 'push-stream',
    kind: 'module',
    source: 'wandenberg/nginx-push-stream-module at b1c1a08 (2024-05-09, tag 0.6.0)',
    modules: `
      ngx_http_push_stream_module
    `,
    names: {
      http: `
        push_stream_allow_connections_to_events_channel push_stream_allowed_origins
        push_stream_authorized_channels_only push_stream_channel_deleted_message_text
        push_stream_channel_inactivity_time push_stream_channel_info_on_publish
        push_stream_channels_path push_stream_channels_statistics push_stream_events_channel_id
        push_stream_footer_template push_stream_header_template push_stream_header_template_file
        push_stream_last_event_id push_stream_last_received_message_tag
        push_stream_last_received_message_time push_stream_longpolling_connection_ttl
        push_stream_max_channel_id_length push_stream_max_messages_stored_per_channel
        push_stream_max_number_of_channels push_stream_max_number_of_wildcard_channels
        push_stream_max_subscribers_per_channel push_stream_message_template
        push_stream_message_ttl push_stream_padding_by_user_agent
        push_stream_ping_message_interval push_stream_ping_message_text push_stream_publisher
        push_stream_shared_memory_size push_stream_store_messages push_stream_subscriber
        push_stream_subscriber_connection_ttl push_stream_timeout_with_body
        push_stream_user_agent push_stream_websocket_allow_publish
        push_stream_wildcard_channel_max_qtd push_stream_wildcard_channel_prefix
      `,
    },
  },
  {
    family: 'fancyindex',
    kind: 'module',
    source: 'aperezdc/ngx-fancyindex at 70311f2 (2026-02-24, tag v0.6.0)',
    modules: `
      ngx_http_fancyindex_module
    `,
    names: {
      http: `
        fancyindex fancyindex_case_sensitive fancyindex_css_href fancyindex_default_sort
        fancyindex_directories_first fancyindex_exact_size fancyindex_footer fancyindex_header
        fancyindex_hide_parent_dir fancyindex_hide_symlinks fancyindex_ignore
        fancyindex_localtime fancyindex_show_dotfiles fancyindex_show_path
        fancyindex_time_format
      `,
    },
  },
  {
    family: 'dav-ext',
    kind: 'module',
    source: 'arut/nginx-dav-ext-module at f5e3088 (2018-12-17, tag v3.0.0)',
    modules: `
      ngx_http_dav_ext_module
    `,
    names: {
      http: `
        dav_ext_lock dav_ext_lock_zone dav_ext_methods
      `,
    },
  },
  {
    family: 'cache_purge',
    kind: 'module',
    source: 'nginx-modules/ngx_cache_purge at 4e012c1 (2026-04-25, tag 3.0.1)',
    modules: `
      ngx_http_cache_purge_module
    `,
    names: {
      http: `
        cache_purge_background_queue cache_purge_batch_size cache_purge_legacy_status
        cache_purge_queue_size cache_purge_response_type cache_purge_throttle_ms
        cache_purge_vary_aware fastcgi_cache_purge proxy_cache_purge scgi_cache_purge
        uwsgi_cache_purge
      `,
    },
  },
  {
    family: 'PageSpeed',
    kind: 'module',
    source: 'apache/incubator-pagespeed-ngx at 13bee9d (2023-04-21, 516 commits after v1.7.30.4-beta)',
    modules: `
      ngx_pagespeed ngx_pagespeed_etag_filter
    `,
    names: {
      http: `
        pagespeed
      `,
    },
  },
  {
    family: 'auth_pam',
    kind: 'module',
    source: 'sto/ngx_http_auth_pam_module at d9429ba (2023-06-20, tag v1.5.5)',
    modules: `
      ngx_http_auth_pam_module
    `,
    names: {
      http: `
        auth_pam auth_pam_service_name auth_pam_set_pam_env
      `,
    },
  },
  {
    family: 'auth_ldap',
    kind: 'module',
    source: 'kvspb/nginx-auth-ldap at 241200e (2024-04-24, 147 commits after v0.1)',
    modules: `
      ngx_http_auth_ldap_module
    `,
    names: {
      http: `
        auth_ldap auth_ldap_cache_enabled auth_ldap_cache_expiration_time auth_ldap_cache_size
        auth_ldap_servers auth_ldap_servers_size ldap_server
      `,
    },
  },
  {
    family: 'auth_spnego',
    kind: 'module',
    source: 'stnoonan/spnego-http-auth-nginx-module at c3dbfbd (2025-07-24, 13 commits after v1.1.3)',
    modules: `
      ngx_http_auth_spnego_module
    `,
    names: {
      http: `
        auth_gss auth_gss_allow_basic_fallback auth_gss_authorized_principal
        auth_gss_authorized_principal_regex auth_gss_constrained_delegation
        auth_gss_delegate_credentials auth_gss_force_realm auth_gss_format_full auth_gss_keytab
        auth_gss_map_to_local auth_gss_realm auth_gss_service_ccache auth_gss_service_name
        auth_gss_zone_name
      `,
    },
  },
  {
    family: 'auth_digest',
    kind: 'module',
    source: 'atomx/nginx-http-auth-digest at b3073ef (2019-07-26, 1 commit after v1.0.0)',
    modules: `
      ngx_http_auth_digest_module
    `,
    names: {
      http: `
        auth_digest auth_digest_drop_time auth_digest_evasion_time auth_digest_expires
        auth_digest_maxtries auth_digest_replays auth_digest_shm_size auth_digest_timeout
        auth_digest_user_file
      `,
    },
  },
  {
    family: 'auth_jwt (TeslaGov)',
    kind: 'module',
    source: 'TeslaGov/ngx-http-auth-jwt-module at 85ec6cb (2026-01-07, 4 commits after 2.4.0)',
    modules: `
      ngx_http_auth_jwt_module
    `,
    names: {
      http: `
        auth_jwt_algorithm auth_jwt_enabled auth_jwt_extract_request_claims
        auth_jwt_extract_response_claims auth_jwt_extract_var_claims auth_jwt_key
        auth_jwt_keyfile_path auth_jwt_location auth_jwt_loginurl auth_jwt_redirect
        auth_jwt_use_keyfile auth_jwt_validate_sub
      `,
    },
  },
  {
    family: 'Shibboleth',
    kind: 'module',
    source: 'nginx-shib/nginx-http-shibboleth at 629ae1f (2024-11-18, 1 commit after v2.0.2)',
    modules: `
      ngx_http_shibboleth_module
    `,
    names: {
      http: `
        shib_request shib_request_set shib_request_use_headers
      `,
    },
  },
  {
    family: 'aws_auth',
    kind: 'module',
    source: 'anomalizer/ngx_aws_auth at f3d9862 (2023-12-05, 31 commits after 2.1.1)',
    modules: `
      ngx_http_aws_auth_module
    `,
    names: {
      http: `
        aws_access_key aws_endpoint aws_key_scope aws_s3_bucket aws_sign aws_signing_key
      `,
    },
  },
  {
    family: 'subs_filter',
    kind: 'module',
    source: 'yaoweibin/ngx_http_substitutions_filter_module at e12e965 (2022-01-24, 18 commits after v0.6.4)',
    modules: `
      ngx_http_subs_filter_module
    `,
    names: {
      http: `
        subs_buffers subs_filter subs_filter_bypass subs_filter_types subs_line_buffer_size
      `,
    },
  },
  {
    family: 'upstream check',
    kind: 'module',
    source: 'yaoweibin/nginx_upstream_check_module at e538034 (2019-11-03, 27 commits after v0.3.0)',
    modules: `
      ngx_http_upstream_check_module
    `,
    names: {
      http: `
        check check_fastcgi_param check_http_expect_alive check_http_send
        check_keepalive_requests check_shm_size check_status
      `,
    },
  },
  {
    family: 'AJP',
    kind: 'module',
    source: 'yaoweibin/nginx_ajp_module at a964a0b (2020-03-26, 24 commits after v0.3.0)',
    modules: `
      ngx_http_ajp_module
    `,
    names: {
      http: `
        ajp_buffer_size ajp_buffers ajp_busy_buffers_size ajp_cache ajp_cache_key ajp_cache_lock
        ajp_cache_lock_timeout ajp_cache_methods ajp_cache_min_uses ajp_cache_path
        ajp_cache_use_stale ajp_cache_valid ajp_connect_timeout ajp_header_packet_buffer_size
        ajp_hide_header ajp_ignore_client_abort ajp_ignore_headers ajp_intercept_errors
        ajp_keep_conn ajp_max_data_packet_size ajp_max_temp_file_size ajp_next_upstream ajp_pass
        ajp_pass_header ajp_pass_request_body ajp_pass_request_headers ajp_read_timeout
        ajp_secret ajp_send_lowat ajp_send_timeout ajp_store ajp_store_access
        ajp_temp_file_write_size ajp_temp_path ajp_upstream_fail_timeout ajp_upstream_max_fails
      `,
    },
  },
  {
    family: 'sticky (nginx-sticky-module-ng)',
    kind: 'module',
    source: 'Refinitiv/nginx-sticky-module-ng at 6fe17af (2022-11-26, 14 commits after 1.2.6)',
    modules: `
      ngx_http_sticky_module
    `,
    names: {
      http: `
        sticky sticky_hide_cookie sticky_no_fallback
      `,
    },
  },
  {
    family: 'upstream fair',
    kind: 'module',
    source: 'gnosek/nginx-upstream-fair at a18b409 (2012-04-08)',
    modules: `
      ngx_http_upstream_fair_module
    `,
    names: {
      http: `
        fair upstream_fair_shm_size
      `,
    },
  },
  {
    family: 'dyups',
    kind: 'module',
    source: 'yzprofile/ngx_http_dyups_module at 371151c (2026-06-21, 44 commits after v0.2.9)',
    modules: `
      ngx_http_dyups_module
    `,
    names: {
      http: `
        dyups_interface dyups_shm_zone_size
      `,
    },
  },
  {
    family: 'proxy_connect',
    kind: 'module',
    source: 'chobits/ngx_http_proxy_connect_module at 4f0b6c2 (2024-08-18, tag v0.0.7)',
    modules: `
      ngx_http_proxy_connect_module
    `,
    names: {
      http: `
        proxy_connect proxy_connect_address proxy_connect_allow proxy_connect_bind
        proxy_connect_connect_timeout proxy_connect_data_timeout proxy_connect_read_timeout
        proxy_connect_response proxy_connect_send_lowat proxy_connect_send_timeout
      `,
    },
  },
  {
    family: 'upload progress',
    kind: 'module',
    source: 'masterzen/nginx-upload-progress-module at 463d60b (2025-03-12, tag v0.9.4)',
    modules: `
      ngx_http_uploadprogress_module
    `,
    names: {
      http: `
        report_uploads track_uploads upload_progress upload_progress_content_type
        upload_progress_header upload_progress_java_output upload_progress_json_output
        upload_progress_jsonp_output upload_progress_jsonp_parameter upload_progress_template
      `,
    },
  },
  {
    family: 'upload',
    kind: 'module',
    source: 'fdintino/nginx-upload-module at 96e6460 (2023-06-21, 23 commits after 2.3.0)',
    modules: `
      ngx_http_upload_module
    `,
    names: {
      http: `
        upload_add_header upload_aggregate_form_field upload_buffer_size upload_cleanup
        upload_empty_fiels_names upload_limit_rate upload_max_file_size
        upload_max_output_body_len upload_max_part_header_len upload_merge_buffer_size
        upload_pass upload_pass_args upload_pass_form_field upload_range_header_buffer_size
        upload_resumable upload_set_form_field upload_state_store upload_store
        upload_store_access upload_tame_arrays
      `,
    },
  },
  {
    family: 'concat',
    kind: 'module',
    source: 'alibaba/nginx-http-concat at b8d3e7e (2013-04-09, 16 commits after 1.2.2)',
    modules: `
      ngx_http_concat_module
    `,
    names: {
      http: `
        concat concat_delimiter concat_ignore_file_error concat_max_files concat_types
        concat_unique
      `,
    },
  },
  {
    family: 'cookie_flag',
    kind: 'module',
    source: 'AirisX/nginx_cookie_flag_module at c4ff449 (2017-12-19, 2 commits after v1.1.0)',
    modules: `
      ngx_http_cookie_flag_filter_module
    `,
    names: {
      http: `
        set_cookie_flag
      `,
    },
  },
  {
    family: 'security_headers',
    kind: 'module',
    source: 'GetPageSpeed/ngx_security_headers at 8953d7b (2026-06-13)',
    modules: `
      ngx_http_security_headers_module
    `,
    names: {
      http: `
        hide_server_tokens security_headers security_headers_coep security_headers_coop
        security_headers_corp security_headers_frame security_headers_hsts_preload
        security_headers_referrer_policy security_headers_text_types security_headers_xss
      `,
    },
  },
  {
    family: 'OpenTracing',
    kind: 'module',
    source: 'opentracing-contrib/nginx-opentracing at bc8f784 (2026-08-21, tag v0.49.0)',
    modules: `
      ngx_http_opentracing_module
    `,
    names: {
      http: `
        opentracing opentracing_fastcgi_propagate_context opentracing_grpc_propagate_context
        opentracing_load_tracer opentracing_location_operation_name opentracing_operation_name
        opentracing_propagate_context opentracing_tag opentracing_trace_locations
        opentracing_trust_incoming_span
      `,
    },
  },
  {
    family: 'Datadog',
    kind: 'module',
    source: 'DataDog/nginx-datadog at 3ba2ef6 (2026-08-21, 1 commit after v1.22.0)',
    modules: `
      ngx_http_datadog_module
    `,
    names: {
      http: `
        datadog datadog_agent_url datadog_api_security_enabled
        datadog_api_security_proxy_sample_rate datadog_apm_tracing_enabled
        datadog_appsec_enabled datadog_appsec_http_blocked_template_html
        datadog_appsec_http_blocked_template_json datadog_appsec_max_saved_output_data
        datadog_appsec_obfuscation_key_regex datadog_appsec_obfuscation_value_regex
        datadog_appsec_ruleset_file datadog_appsec_stats_host_port
        datadog_appsec_test_task_delay_ms datadog_appsec_test_task_post_failure_mask
        datadog_appsec_test_task_termination_delay_ms datadog_appsec_test_task_termination_mask
        datadog_appsec_waf_timeout datadog_baggage_tags_enabled datadog_baggage_tags_keys
        datadog_client_ip_header datadog_disable datadog_enable datadog_environment
        datadog_fastcgi_propagate_context datadog_grpc_propagate_context datadog_load_tracer
        datadog_location_operation_name datadog_location_resource_name datadog_operation_name
        datadog_propagate_context datadog_propagation_styles datadog_resource_name
        datadog_resource_renaming_always_simplified_endpoint datadog_resource_renaming_enabled
        datadog_rum datadog_rum_config datadog_sample_rate datadog_service_name datadog_tag
        datadog_trace_locations datadog_tracing datadog_trust_incoming_span datadog_version
        datadog_waf_thread_pool_name opentelemetry opentelemetry_attribute
        opentelemetry_operation_name opentelemetry_otlp_traces_endpoint
        opentelemetry_service_name opentelemetry_traces_sampler_ratio
        opentelemetry_trust_incoming_spans opentracing opentracing_fastcgi_propagate_context
        opentracing_grpc_propagate_context opentracing_load_tracer
        opentracing_location_operation_name opentracing_operation_name
        opentracing_propagate_context opentracing_tag opentracing_trace_locations
        opentracing_trust_incoming_span
      `,
    },
  },
  {
    family: 'njs',
    kind: 'module',
    source:
      'nginx/njs at 3e02ae0 (2026-08-20, 26 commits after 1.0.0) + the js_* pages of nginx.org (3924a7f)',
    modules: `
      ngx_http_js_core_module ngx_http_js_module ngx_stream_js_core_module ngx_stream_js_module
    `,
    names: {
      main: `
        js_load_http_native_module js_load_stream_native_module
      `,
      http: `
        js_access js_body_filter js_content js_context_reuse js_context_reuse_max_size js_engine
        js_fetch_buffer_size js_fetch_ciphers js_fetch_keepalive js_fetch_keepalive_requests
        js_fetch_keepalive_time js_fetch_keepalive_timeout js_fetch_max_response_buffer_size
        js_fetch_protocols js_fetch_proxy js_fetch_timeout js_fetch_trusted_certificate
        js_fetch_verify js_fetch_verify_depth js_header_filter js_import js_include js_path
        js_periodic js_preload_object js_set js_shared_dict_zone js_var
      `,
      stream: `
        js_access js_context_reuse js_context_reuse_max_size js_engine js_fetch_buffer_size
        js_fetch_ciphers js_fetch_keepalive js_fetch_keepalive_requests js_fetch_keepalive_time
        js_fetch_keepalive_timeout js_fetch_max_response_buffer_size js_fetch_protocols
        js_fetch_proxy js_fetch_timeout js_fetch_trusted_certificate js_fetch_verify
        js_fetch_verify_depth js_filter js_import js_include js_path js_periodic
        js_preload_object js_preread js_set js_shared_dict_zone js_var
      `,
    },
  },
  {
    family: 'nginx-acme',
    kind: 'module',
    source:
      'nginx/nginx-acme at aabca6b (2026-07-21, 5 commits after v0.4.1) + its page on nginx.org (3924a7f)',
    modules: `
      ngx_http_acme_module
    `,
    names: {
      http: `
        acme_certificate acme_certificate_key acme_issuer acme_shared_zone
      `,
      own: `
        accept_terms_of_service account_key challenge common_name_in_csr contact
        external_account_key preferred_chain profile ssl_verify state_path uri
      `,
    },
  },
  {
    family: 'nginx-otel',
    kind: 'module',
    source: 'nginx/nginx-go-crossplane v0.4.89 (11d0d6b), analyze_otel_directives.gen.go',
    modules: `
      ngx_otel_module
    `,
    names: {
      http: `
        otel_exporter otel_resource_attr otel_service_name otel_span_attr otel_span_name
        otel_trace otel_trace_context
      `,
      own: `
        header trusted_certificate
      `,
    },
  },
  {
    family: "OpenResty's patched nginx",
    kind: 'module',
    source: 'openresty/openresty at 4eb3c73 (2026-08-05), patches/nginx/1.31.3',
    names: {
      http: `
        log_escape_non_ascii no_error_pages
      `,
    },
  },
  {
    family: "APISIX's apisix-nginx-module",
    kind: 'module',
    source: 'api7/apisix-nginx-module at e878476 (2026-07-15, tag 1.19.8)',
    modules: `
      ngx_http_apisix_module ngx_meta_lua_module ngx_stream_apisix_module
    `,
    names: {
      main: `
        lua
      `,
      http: `
        apisix_delay_client_max_body_check lua_error_log_request_id
      `,
      own: `
        lua_shared_dict
      `,
    },
  },
];
