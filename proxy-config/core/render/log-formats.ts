/**
 * The access log formats proxyops renders (`log_format` bodies, as written between the quotes).
 * Both hold every field of conventions §4.8; the log readers import them as presets.
 */

/** The nginx variable holding the effective request id: the client's X-Request-ID, else `$request_id`. */
export const REQUEST_ID_VARIABLE = '$proxyops_request_id';

/** `log_format` names used in rendered configs. */
export const PROXYOPS_LOG_FORMAT_NAMES = { text: 'proxyops_text', json: 'proxyops_json' } as const;

/**
 * The response header an instance names itself in (`proxyops api` sends its PROXYOPS_INSTANCE_NAME):
 * behind an upstream slot `$upstream_addr` names the slot, not the process, so the log takes the
 * instance from this header; nginx strips it before the client.
 */
export const INSTANCE_HEADER = 'X-Proxyops-Instance';
/** The log variable holding it (without `$`). */
export const INSTANCE_LOG_VARIABLE = 'upstream_http_x_proxyops_instance';
const INSTANCE_VARIABLE = `$${INSTANCE_LOG_VARIABLE}`;

/** The text format of proxyops before it logged the instance: older logs are read with it. */
export const PROXYOPS_LOG_FORMAT_TEXT_1 =
  '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent ' +
  '"$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" ' +
  'uht="$upstream_header_time" urt="$upstream_response_time" ua="$upstream_addr" ' +
  `us="$upstream_status" rid="${REQUEST_ID_VARIABLE}"`;

/** Combined-log prefix plus key=value upstream fields; quoted values may hold `, `-separated lists. */
export const PROXYOPS_LOG_FORMAT_TEXT = `${PROXYOPS_LOG_FORMAT_TEXT_1} ui="${INSTANCE_VARIABLE}"`;

/** The JSON format of proxyops before it logged the instance. */
export const PROXYOPS_LOG_FORMAT_JSON_1 =
  '{"remote_addr":"$remote_addr","remote_user":"$remote_user","time_local":"$time_local",' +
  '"request":"$request","status":"$status","body_bytes_sent":"$body_bytes_sent",' +
  '"http_referer":"$http_referer","http_user_agent":"$http_user_agent",' +
  '"request_time":"$request_time","upstream_connect_time":"$upstream_connect_time",' +
  '"upstream_header_time":"$upstream_header_time","upstream_response_time":"$upstream_response_time",' +
  `"upstream_addr":"$upstream_addr","upstream_status":"$upstream_status","request_id":"${REQUEST_ID_VARIABLE}"}`;

/** One JSON object per line (`escape=json`); every value is a string since upstream fields may be lists or `-`. */
export const PROXYOPS_LOG_FORMAT_JSON = `${PROXYOPS_LOG_FORMAT_JSON_1.slice(0, -1)},"upstream_instance":"${INSTANCE_VARIABLE}"}`;
