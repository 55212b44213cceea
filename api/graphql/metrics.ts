/** In-process counters of the query endpoint, rendered for Prometheus on /metrics. */
export interface GraphqlMetrics {
  recordOperation(kind: string, storeQueries: number, seconds: number): void;
  /** Counts one store query as it starts (also for operations still running). */
  countStoreQuery(): void;
  render(): string;
}

const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/** Creates the counters of one app. */
export function createGraphqlMetrics(): GraphqlMetrics {
  const operations = new Map<string, number>();
  let storeQueries = 0;
  const buckets = DURATION_BUCKETS.map(() => 0);
  let durationSum = 0;
  let durationCount = 0;
  let lastQueries = 0;
  return {
    recordOperation(kind, queries, seconds) {
      operations.set(kind, (operations.get(kind) ?? 0) + 1);
      lastQueries = queries;
      durationSum += seconds;
      durationCount++;
      DURATION_BUCKETS.forEach((bound, i) => {
        if (seconds <= bound) buckets[i] = (buckets[i] ?? 0) + 1;
      });
    },
    countStoreQuery() {
      storeQueries++;
    },
    render() {
      const lines = [
        '# HELP proxyops_graphql_operations_total GraphQL operations executed, by kind.',
        '# TYPE proxyops_graphql_operations_total counter',
        ...[...operations].map(([kind, n]) => `proxyops_graphql_operations_total{kind="${kind}"} ${n}`),
        '# HELP proxyops_graphql_store_queries_total Store (SQL) queries run by GraphQL operations.',
        '# TYPE proxyops_graphql_store_queries_total counter',
        `proxyops_graphql_store_queries_total ${storeQueries}`,
        '# HELP proxyops_graphql_last_operation_store_queries Store queries of the last finished operation.',
        '# TYPE proxyops_graphql_last_operation_store_queries gauge',
        `proxyops_graphql_last_operation_store_queries ${lastQueries}`,
        '# HELP proxyops_graphql_operation_duration_seconds Execution time of GraphQL operations.',
        '# TYPE proxyops_graphql_operation_duration_seconds histogram',
        ...DURATION_BUCKETS.map(
          (bound, i) => `proxyops_graphql_operation_duration_seconds_bucket{le="${bound}"} ${buckets[i]}`,
        ),
        `proxyops_graphql_operation_duration_seconds_bucket{le="+Inf"} ${durationCount}`,
        `proxyops_graphql_operation_duration_seconds_sum ${durationSum}`,
        `proxyops_graphql_operation_duration_seconds_count ${durationCount}`,
      ];
      return `${lines.join('\n')}\n`;
    },
  };
}
