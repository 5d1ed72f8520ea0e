{{- /*
Checks of values that each pass on their own but cannot work together: the apps would refuse them
at start (a crash-looping pod), or Kubernetes or Prometheus would act on none of them.
*/}}
{{/* A duration of the schema's form (`500ms`, `30s`, `5m`, `1h`) in milliseconds. */}}
{{- define "modelgate.durationMs" -}}
{{- $unit := regexFind "(ms|s|m|h)$" . }}
{{- $count := int64 (trimSuffix $unit .) }}
{{- mul $count (get (dict "ms" 1 "s" 1000 "m" 60000 "h" 3600000) $unit) }}
{{- end }}

{{/*
A ServiceMonitor's scrapeTimeout may not exceed its interval: Prometheus refuses such a scrape
config. Unset, it is left out, and Prometheus takes the smaller of its global timeout and the interval.
*/}}
{{- define "modelgate.checkScrapeTimeout" -}}
{{- $monitor := .Values.metrics.serviceMonitor }}
{{- if $monitor.scrapeTimeout }}
{{- $interval := $monitor.interval | default "30s" }}
{{- if gt (int64 (include "modelgate.durationMs" $monitor.scrapeTimeout)) (int64 (include "modelgate.durationMs" $interval)) }}
{{- fail (printf "metrics.serviceMonitor.scrapeTimeout %s is longer than the scrape interval %s: Prometheus refuses such a scrape config. Shorten it, or unset it (Prometheus then uses at most the interval)" $monitor.scrapeTimeout $interval) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
The gateways' fewest replicas: gateway.autoscaling.minReplicas ("" = 2) under the HPA, else
gateway.replicaCount ("" = 2). The HPA's minReplicas may not exceed its maxReplicas ("" = 10).
*/}}
{{- define "modelgate.gatewayMinReplicas" -}}
{{- $scaling := .Values.gateway.autoscaling }}
{{- if $scaling.enabled }}
{{- $min := int (include "modelgate.valueOr" (dict "value" $scaling.minReplicas "default" 2)) }}
{{- $max := int (include "modelgate.valueOr" (dict "value" $scaling.maxReplicas "default" 10)) }}
{{- if gt $min $max }}
{{- fail (printf "gateway.autoscaling.minReplicas (%d) is above maxReplicas (%d): the HPA would be refused. Raise maxReplicas or lower minReplicas" $min $max) }}
{{- end }}
{{- $min }}
{{- else }}
{{- include "modelgate.valueOr" (dict "value" .Values.gateway.replicaCount "default" 2) }}
{{- end }}
{{- end }}

{{/*
A gateway PodDisruptionBudget that keeps every replica of the fewest the gateways run lets no pod
be evicted: `kubectl drain` of their nodes would wait forever.
*/}}
{{- define "modelgate.checkGatewayDisruption" -}}
{{- $pdb := .Values.gateway.pdb }}
{{- if $pdb.enabled }}
{{- $replicas := int (include "modelgate.gatewayMinReplicas" .) }}
{{- $given := toString (include "modelgate.valueOr" (dict "value" $pdb.minAvailable "default" 1)) }}
{{- $kept := 0 }}
{{- if hasSuffix "%" $given }}
{{- $kept = div (add (mul (int (trimSuffix "%" $given)) $replicas) 99) 100 }}
{{- else }}
{{- $kept = int $given }}
{{- end }}
{{- if and (gt $kept 0) (ge $kept $replicas) }}
{{- fail (printf "gateway.pdb.minAvailable %s keeps all %d gateway replicas (the fewest they run): no gateway could ever be evicted and node drains would hang. Run more replicas (gateway.autoscaling.minReplicas, or gateway.replicaCount without the HPA), lower minAvailable, or set gateway.pdb.enabled false" $given $replicas) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The worker refuses a first load retry wait above the longest (defaults 1000 and 30000 ms). */}}
{{- define "modelgate.checkWorkerLoadRetry" -}}
{{- $env := .Values.worker.env }}
{{- if or (hasKey $env "WORKER_LOAD_RETRY_BASE_MS") (hasKey $env "WORKER_LOAD_RETRY_MAX_MS") }}
{{- $base := int64 (get $env "WORKER_LOAD_RETRY_BASE_MS" | default 1000) }}
{{- $max := int64 (get $env "WORKER_LOAD_RETRY_MAX_MS" | default 30000) }}
{{- if gt $base $max }}
{{- fail (printf "worker.env.WORKER_LOAD_RETRY_BASE_MS (%d, the first wait) is above WORKER_LOAD_RETRY_MAX_MS (%d, the longest; default 30000): the worker refuses it at start. Lower the first or raise the longest" $base $max) }}
{{- end }}
{{- end }}
{{- end }}

{{/*
Registry settings that act only through Redis, and more than one registry replica (they share
preparation through BullMQ), need REDIS_URL. The chart knows there is none when it makes the
Secret itself without credentials.create.redisUrl (static mode: live mode requires it).
*/}}
{{- define "modelgate.registryRedisNeeds" -}}
{{- $needs := list }}
{{- range $key := list "REDIS_KEY_PREFIX" "REGISTRY_PREPARATION_LOCK_MS" "REGISTRY_PREPARATION_STALLED_INTERVAL_MS" "REGISTRY_ROLLOUT_TICK_MS" }}
{{- if hasKey $.Values.registry.env $key }}{{ $needs = append $needs (printf "registry.env.%s" $key) }}{{ end }}
{{- end }}
{{- if gt (int .Values.registry.replicaCount) 1 }}{{ $needs = append $needs (printf "registry.replicaCount %d" (int .Values.registry.replicaCount)) }}{{ end }}
{{- toJson $needs }}
{{- end }}

{{- define "modelgate.checkRegistryRedis" -}}
{{- $needs := include "modelgate.registryRedisNeeds" . | fromJsonArray }}
{{- if and $needs .Values.credentials.create.enabled (not .Values.credentials.create.redisUrl) }}
{{- fail (printf "%s act%s only with Redis, and the chart's Secret (credentials.create.enabled) has no credentials.create.redisUrl: the registry would refuse to start. Set credentials.create.redisUrl, or unset %s" (join ", " $needs) (ternary "" "s" (gt (len $needs) 1)) (ternary "them" "it" (gt (len $needs) 1))) }}
{{- end }}
{{- end }}

{{/*
The gateway runs asynchronous jobs only with Redis, which it gets in live mode alone: its job
settings in static mode would make it refuse to start.
*/}}
{{- define "modelgate.checkGatewayAsync" -}}
{{- if not (include "modelgate.liveSync" .) }}
{{- $set := list }}
{{- range $key := list "GATEWAY_ASYNC_RESULT_TTL_SECONDS" "GATEWAY_ASYNC_CONCURRENCY" }}
{{- if hasKey $.Values.gateway.env $key }}{{ $set = append $set (printf "gateway.env.%s" $key) }}{{ end }}
{{- end }}
{{- if $set }}
{{- fail (printf "%s: asynchronous jobs live in Redis, which gateways get only with configSync.mode live; in static mode they take no jobs and would refuse to start: unset %s" (join ", " $set) (ternary "them" "it" (gt (len $set) 1))) }}
{{- end }}
{{- end }}
{{- end }}
