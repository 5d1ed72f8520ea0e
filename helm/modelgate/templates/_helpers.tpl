{{/* Chart name, overridable. */}}
{{- define "modelgate.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Prefix of every resource name: <release>-<chart>, or the release name when it already contains
the chart name. Kept short enough for a "-worker-headless"-style suffix within 63 characters.
*/}}
{{- define "modelgate.fullname" -}}
{{- if gt (len .Values.fullnameOverride) 45 }}
{{- fail (printf "fullnameOverride has %d characters; resource names add up to 18 to it within Kubernetes' 63, so it may have at most 45" (len .Values.fullnameOverride)) }}
{{- end }}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 45 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 45 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* The extended resource GPUs are requested as ("" = nvidia.com/gpu). */}}
{{- define "modelgate.gpuResource" -}}
{{- .Values.worker.gpu.resourceName | default "nvidia.com/gpu" }}
{{- end }}

{{/* Name of one component's resources: (dict "root" $ "component" "gateway"). */}}
{{- define "modelgate.componentName" -}}
{{- printf "%s-%s" (include "modelgate.fullname" .root) .component }}
{{- end }}

{{- define "modelgate.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Selector labels of a component: (dict "root" $ "component" "worker"). Immutable once deployed. */}}
{{- define "modelgate.selectorLabels" -}}
app.kubernetes.io/name: {{ include "modelgate.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{/* Every resource's labels: (dict "root" $ "component" "worker"). */}}
{{- define "modelgate.labels" -}}
helm.sh/chart: {{ include "modelgate.chart" .root }}
{{ include "modelgate.selectorLabels" . }}
app.kubernetes.io/version: {{ .root.Chart.AppVersion | quote }}
app.kubernetes.io/part-of: modelgate
app.kubernetes.io/managed-by: {{ .root.Release.Service }}
{{- with .root.Values.commonLabels }}
{{- include "modelgate.refuseOwnKeys" (dict "given" . "name" "commonLabels" "own" (include "modelgate.ownLabelKeys" $.root | fromJsonArray) "what" "a label every object carries") }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/*
Image reference of a component: (dict "root" $ "image" .Values.gateway.image). The registry is
required: a bare `modelgate/<app>` would resolve to Docker Hub's docker.io/modelgate, a namespace
the project does not own, so a missing value must not pull someone else's image.
*/}}
{{- define "modelgate.image" -}}
{{- $registry := required "image.registry is required: the registry (and path) you pushed the modelgate images to, e.g. --set image.registry=ghcr.io/acme (the project publishes no images, and a bare modelgate/<app> would pull from Docker Hub's docker.io/modelgate, which it does not own)" .root.Values.image.registry }}
{{- $tag := default .root.Chart.AppVersion .root.Values.image.tag }}
{{- printf "%s/%s:%s" (trimSuffix "/" $registry) .image.repository $tag }}
{{- end }}

{{/* In-cluster DNS name of a Service: (dict "root" $ "component" "registry"). */}}
{{- define "modelgate.serviceHost" -}}
{{- printf "%s.%s.svc.%s" (include "modelgate.componentName" .) .root.Release.Namespace .root.Values.clusterDomain }}
{{- end }}

{{/* Base URL workers and gateways reach the registry at. */}}
{{- define "modelgate.registryUrl" -}}
{{- printf "http://%s:%d" (include "modelgate.serviceHost" (dict "root" . "component" "registry")) (int .Values.registry.service.port) }}
{{- end }}

{{/*
An *_ARTIFACT_ALLOWED_HOSTS value: the registry's Service host (its uploaded artifacts live at
REGISTRY_PUBLIC_URL, a private address the SSRF guard refuses otherwise) plus the user's list.
Arguments: (dict "root" $ "value" <user value or nil>).
*/}}
{{- define "modelgate.allowedHosts" -}}
{{- $hosts := list (include "modelgate.serviceHost" (dict "root" .root "component" "registry")) }}
{{- if .value }}
{{- $hosts = append $hosts (toString .value) }}
{{- end }}
{{- join "," $hosts }}
{{- end }}

{{/*
Sets a node's <APP>_ARTIFACT_ALLOWED_HOSTS in its env dict (modelgate.allowedHosts), except while
its <APP>_ALLOW_HTTP_ARTIFACTS turns http(s) artifact URIs off, where the list would exempt nothing:
then a list given in the values is refused. Arguments: (dict "root" $ "env" $env "app" "GATEWAY").
*/}}
{{- define "modelgate.setArtifactAllowedHosts" -}}
{{- $hostsKey := printf "%s_ARTIFACT_ALLOWED_HOSTS" .app }}
{{- $httpKey := printf "%s_ALLOW_HTTP_ARTIFACTS" .app }}
{{- if has (toString (index .env $httpKey)) (list "false" "0" "no") }}
{{- if hasKey .env $hostsKey }}
{{- fail (printf "%s exempts hosts of http(s) artifact URIs from the private-address guard, and %s turns those URIs off: leave one of them out" $hostsKey $httpKey) }}
{{- end }}
{{- else }}
{{- $_ := set .env $hostsKey (include "modelgate.allowedHosts" (dict "root" .root "value" (index .env $hostsKey))) }}
{{- end }}
{{- end }}

{{/*
An env value as a string. Helm reads numbers from YAML as float64, whose default formatting
turns 4294967296 into 4.294967296e+09: integral numbers are printed as integers.
*/}}
{{- define "modelgate.envValue" -}}
{{- if and (kindIs "float64" .) (eq (float64 (int64 .)) .) }}
{{- int64 . }}
{{- else }}
{{- toString . }}
{{- end }}
{{- end }}

{{/* Secret the credentials come from. */}}
{{- define "modelgate.credentialsSecret" -}}
{{- if .Values.credentials.create.enabled }}
{{- if .Values.credentials.existingSecret }}
{{- fail (printf "credentials.existingSecret (%s) is read only without credentials.create.enabled, which makes the chart's own Secret %s-credentials instead: unset one of them" .Values.credentials.existingSecret (include "modelgate.fullname" .)) }}
{{- end }}
{{- printf "%s-credentials" (include "modelgate.fullname" .) }}
{{- else }}
{{- default "modelgate-credentials" .Values.credentials.existingSecret }}
{{- end }}
{{- end }}

{{/* The registry's credential env vars (registry and migration Job share them). */}}
{{- define "modelgate.databaseUrlEnv" -}}
- name: DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "modelgate.credentialsSecret" . }}
      key: {{ .Values.credentials.keys.databaseUrl }}
{{- end }}

{{/* ConfigMap holding snapshot.json. */}}
{{- define "modelgate.snapshotConfigMap" -}}
{{- default (printf "%s-snapshot" (include "modelgate.fullname" .)) .Values.snapshot.existingConfigMap }}
{{- end }}

{{/* Pod-level security context. */}}
{{- define "modelgate.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: {{ .Values.podSecurityContext.runAsUser }}
runAsGroup: {{ .Values.podSecurityContext.runAsGroup }}
fsGroup: {{ .Values.podSecurityContext.fsGroup }}
fsGroupChangePolicy: OnRootMismatch
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Container-level security context: non-root, read-only root filesystem, no capabilities. */}}
{{- define "modelgate.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
privileged: false
capabilities:
  drop:
    - ALL
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* Pod spec fields every component shares. */}}
{{- define "modelgate.podCommon" -}}
{{- if .Values.serviceAccountName }}
serviceAccountName: {{ .Values.serviceAccountName }}
{{- end }}
automountServiceAccountToken: false
enableServiceLinks: false
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
securityContext:
  {{- include "modelgate.podSecurityContext" . | nindent 2 }}
{{- end }}

{{/*
Scheduling fields of a component: nodeSelector, tolerations, affinity, priorityClassName and
topologySpreadConstraints (an entry without labelSelector selects the component's own pods).
Arguments: (dict "root" $ "component" "gateway" "values" .Values.gateway).
*/}}
{{- define "modelgate.scheduling" -}}
{{- with .values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- if .values.topologySpreadConstraints }}
{{- $constraints := list }}
{{- range .values.topologySpreadConstraints }}
{{- $constraint := deepCopy . }}
{{- if not (hasKey $constraint "labelSelector") }}
{{- $_ := set $constraint "labelSelector" (dict "matchLabels" (include "modelgate.selectorLabels" $ | fromYaml)) }}
{{- end }}
{{- $constraints = append $constraints $constraint }}
{{- end }}
topologySpreadConstraints:
  {{- toYaml $constraints | nindent 2 }}
{{- end }}
{{- end }}

{{/*
Scheduling fields of a single hook or test pod, taken from the component whose image it runs
(`.values`): nodeSelector, tolerations, affinity and priorityClassName, so it can land where that
component's pods may (tainted or dedicated nodes); no topologySpreadConstraints, since one pod has
nothing to spread over. Arguments: (dict "root" $ "values" .Values.registry).
*/}}
{{- define "modelgate.hookScheduling" -}}
{{- include "modelgate.scheduling" (dict "root" .root "values" (pick .values "nodeSelector" "tolerations" "affinity" "priorityClassName")) }}
{{- end }}

{{/* "true" when gateways and workers follow the registry (configSync.mode live), "" otherwise. */}}
{{- define "modelgate.liveSync" -}}
{{- $revision := ne (toString .Values.snapshot.revision) "" }}
{{- if eq .Values.configSync.mode "live" }}
{{- if or .Values.snapshot.existingConfigMap .Values.snapshot.models .Values.snapshot.endpoints $revision }}
{{- fail "snapshot.models, snapshot.endpoints, snapshot.revision and snapshot.existingConfigMap are used only with configSync.mode static; in live mode the fleet follows the registry (create models and endpoints there)" }}
{{- end }}
{{- true }}
{{- else }}
{{- if and .Values.snapshot.existingConfigMap (or .Values.snapshot.models .Values.snapshot.endpoints $revision) }}
{{- fail "snapshot.models, snapshot.endpoints and snapshot.revision describe the snapshot the chart renders; with snapshot.existingConfigMap your ConfigMap's snapshot.json is served instead: put them there, or leave existingConfigMap unset" }}
{{- end }}
{{- if .Values.credentials.keys.nodeToken }}
{{- fail "credentials.keys.nodeToken names the REGISTRY_TOKEN key of gateways and workers in configSync.mode live; in static mode they read no registry: unset it" }}
{{- end }}
{{- end }}
{{- end }}

{{/* Prefix of the registry's Redis keys, which gateways and workers must share in live mode. */}}
{{- define "modelgate.redisKeyPrefix" -}}
{{- default "modelgate" .Values.registry.env.REDIS_KEY_PREFIX }}
{{- end }}

{{/*
Live-sync env vars of gateways and workers taken from the credentials Secret: REDIS_URL and
REGISTRY_TOKEN (the nodeToken key, or the bootstrap token's key when it is ""). Both required.
*/}}
{{- define "modelgate.liveSyncSecretEnv" -}}
- name: REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ include "modelgate.credentialsSecret" . }}
      key: {{ .Values.credentials.keys.redisUrl }}
- name: REGISTRY_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ include "modelgate.credentialsSecret" . }}
      key: {{ default .Values.credentials.keys.bootstrapToken .Values.credentials.keys.nodeToken }}
{{- end }}

{{/* gateway.replicaCount acts only without the HPA, gateway.autoscaling's bounds only with it. */}}
{{- define "modelgate.checkGatewayScaling" -}}
{{- $scaling := .Values.gateway.autoscaling }}
{{- if $scaling.enabled }}
{{- if ne (toString .Values.gateway.replicaCount) "" }}
{{- fail "gateway.replicaCount applies with gateway.autoscaling.enabled false; the HPA sets the replicas: set gateway.autoscaling.minReplicas/maxReplicas instead" }}
{{- end }}
{{- else }}
{{- $set := list }}
{{- range $key := list "minReplicas" "maxReplicas" "targetCPUUtilizationPercentage" }}
{{- if ne (toString (index $scaling $key)) "" }}{{ $set = append $set (printf "gateway.autoscaling.%s" $key) }}{{ end }}
{{- end }}
{{- if $set }}
{{- fail (printf "%s: apply only with gateway.autoscaling.enabled (it is false: gateway.replicaCount sets the replicas); unset them" (join ", " $set)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* `.value`, or `.default` when it is "" (unset): unlike `default`, keeps a 0 that was given. */}}
{{- define "modelgate.valueOr" -}}
{{- if eq (toString .value) "" }}{{ .default }}{{ else }}{{ .value }}{{ end }}
{{- end }}

{{/* A component's PodDisruptionBudget setting (`key`) acts only with its pdb.enabled. */}}
{{- define "modelgate.checkPdb" -}}
{{- $pdb := index .root.Values .component "pdb" }}
{{- if and (not $pdb.enabled) (ne (toString (index $pdb .key)) "") }}
{{- fail (printf "%s.pdb.%s applies only with %s.pdb.enabled (it is false: no PodDisruptionBudget is rendered); unset it" .component .key .component) }}
{{- end }}
{{- end }}

{{/*
"true" when the credentials check pod runs: credentials.preflight.enabled ("" = true) with an
existing Secret. The check reads credentials.existingSecret, so with credentials.create.enabled a
preflight setting is refused.
*/}}
{{- define "modelgate.credentialsPreflight" -}}
{{- $enabled := toString .Values.credentials.preflight.enabled }}
{{- if .Values.credentials.create.enabled }}
{{- if ne $enabled "" }}
{{- fail "credentials.preflight.enabled checks the existing Secret (credentials.existingSecret); with credentials.create.enabled the chart makes its own and renders no check: unset it" }}
{{- end }}
{{- else if ne $enabled "false" }}
{{- true }}
{{- end }}
{{- end }}

{{/* credentials.create's values make the chart's Secret, which only credentials.create.enabled renders. */}}
{{- define "modelgate.checkCredentialsCreate" -}}
{{- $create := .Values.credentials.create }}
{{- if not $create.enabled }}
{{- $set := list }}
{{- range $key := list "databaseUrl" "redisUrl" "bootstrapToken" "hfToken" }}
{{- if index $create $key }}{{ $set = append $set (printf "credentials.create.%s" $key) }}{{ end }}
{{- end }}
{{- if $set }}
{{- fail (printf "%s: make the chart's own Secret, which only credentials.create.enabled renders; with credentials.existingSecret put them in that Secret, or set credentials.create.enabled" (join ", " $set)) }}
{{- end }}
{{- end }}
{{- end }}
