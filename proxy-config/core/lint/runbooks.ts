/**
 * The runbook sections lint rules link to, in one place. The runbooks themselves live in
 * `runbooks/`, one file per incident pattern of the conventions (§7.2–7.3).
 */
export const RUNBOOKS = {
  redirectToHttp: 'runbooks/redirect-to-http.md#x-forwarded-proto',
  proxyHeadersDropped: 'runbooks/redirect-to-http.md#headers-dropped-by-inheritance',
  keepAlive: 'runbooks/502-at-certain-hours.md#upstream-keep-alive',
  keepAliveTimeouts: 'runbooks/502-at-certain-hours.md#keep-alive-timeouts',
  fileDescriptors: 'runbooks/502-at-certain-hours.md#too-many-open-files',
  proxyOrUpstream: 'runbooks/502-at-certain-hours.md#proxy-or-upstream',
  trailingSlash: 'runbooks/trailing-slash-404.md#compare-the-forwarded-path',
  stalePage: 'runbooks/stale-page-after-deploy.md#cache-control',
  addHeaderDropped: 'runbooks/stale-page-after-deploy.md#headers-dropped-by-inheritance',
  timeoutsPerLayer: 'runbooks/504.md#timeouts-per-layer',
  requestId: 'runbooks/504.md#join-proxy-and-app-logs',
  bodyLimit: 'runbooks/413.md#lowest-limit-on-the-chain',
  whichLayer: 'runbooks/413.md#which-layer-answered',
  logBuffer: 'runbooks/disk-full-small-logs.md#buffered-access-log',
  slowClients: 'runbooks/499.md#what-the-log-must-hold',
  headerInjection: 'runbooks/proxy-security-report.md#header-injection',
  pathTraversal: 'runbooks/proxy-security-report.md#path-traversal',
  requestForgery: 'runbooks/proxy-security-report.md#server-side-request-forgery',
  accessLists: 'runbooks/proxy-security-report.md#access-lists',
  originChecks: 'runbooks/proxy-security-report.md#origin-and-host-checks',
  stoppedBeforeRemoved: 'runbooks/failed-deploy.md#the-old-instance-stopped-before-it-was-removed',
  trafficBeforeReady: 'runbooks/failed-deploy.md#the-new-instance-took-traffic-before-it-was-ready',
} as const;
