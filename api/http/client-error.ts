import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { PROBLEM_MEDIA_TYPE, toProblem } from './problem.js';
import { SERVER_HEADER } from './protocol.js';

/** Node's parser codes for requests it refuses before Express sees them, as our error codes. */
function toProxyopsError(code: string | undefined): ProxyopsError {
  if (code === 'HPE_HEADER_OVERFLOW')
    return new ProxyopsError('HEADERS_TOO_LARGE', 'the request headers exceed the server limit');
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new ProxyopsError('REQUEST_TIMEOUT', 'the request did not arrive in time');
  return new ProxyopsError('BAD_REQUEST', 'the request is not valid HTTP/1.1');
}

/**
 * The raw response to a request Node's HTTP parser refused (too many header bytes, malformed, too
 * slow): a problem+json body like every other error, instead of Node's bare status line.
 */
export function clientErrorResponse(code: string | undefined): string {
  const problem = toProblem(toProxyopsError(code), '', randomUUID());
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${problem.status} ${problem.title}`,
    `Content-Type: ${PROBLEM_MEDIA_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    `Server: ${SERVER_HEADER}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/**
 * The server's `clientError` listener: answers when the socket can still take a response, then
 * closes. As Node's own listener, it writes nothing once a response on that connection has begun.
 */
export function answerClientError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const responding = (socket as { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent;
  if (error.code === 'ECONNRESET' || !socket.writable || responding === true) return void socket.destroy();
  socket.end(clientErrorResponse(error.code));
}
