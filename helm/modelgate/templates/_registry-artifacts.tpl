{{- /*
The registry's artifact store (REGISTRY_ARTIFACT_DIR): its claim, who can mount it, and what that
allows of the registry's replicas and update strategy.
*/}}
{{/* The created artifacts claim's access modes as JSON ([] in values = ReadWriteOnce). */}}
{{- define "modelgate.registryAccessModes" -}}
{{- default (list "ReadWriteOnce") .Values.registry.persistence.accessModes | toJson }}
{{- end }}

{{/*
Who can mount the artifact store at once:
  "pod"     no persistence: each pod has its own emptyDir;
  "node"    the created claim lacks ReadWriteMany: pods on one node (ReadWriteOnce) or one pod
            (ReadWriteOncePod) mount it, so a second pod elsewhere hangs on a Multi-Attach error;
  "unknown" an existing claim, whose access modes the chart cannot see;
  "shared"  the created claim is ReadWriteMany (a volume with it attaches to many nodes, whatever
            else it lists).
ReadOnlyMany, which would mount the store read-only, is refused by values.schema.json.
*/}}
{{- define "modelgate.registryArtifactsScope" -}}
{{- $p := .Values.registry.persistence }}
{{- if not $p.enabled }}pod
{{- else if $p.existingClaim }}unknown
{{- else if has "ReadWriteMany" (include "modelgate.registryAccessModes" . | fromJsonArray) }}shared
{{- else }}node
{{- end }}
{{- end }}

{{/*
"true" when the registry's pods must be replaced rather than rolled: the claim may attach to one
node or one pod, so a new pod started beside the old one could never mount it. An existing claim
counts as such (its modes are unknown; Recreate works with any).
*/}}
{{- define "modelgate.registryRecreates" -}}
{{- if has (include "modelgate.registryArtifactsScope" .) (list "node" "unknown") }}true{{ end }}
{{- end }}

{{/*
registry.replicaCount above 1 needs an artifact store every replica shares: an artifact uploaded to
one replica is served by all of them. An existing claim is not refused (its modes are unknown).
*/}}
{{- define "modelgate.checkRegistryReplicas" -}}
{{- $replicas := int .Values.registry.replicaCount }}
{{- $scope := include "modelgate.registryArtifactsScope" . }}
{{- $fix := "set registry.persistence.accessModes to [ReadWriteMany] (with a StorageClass that offers it) or mount a ReadWriteMany registry.persistence.existingClaim, or set registry.replicaCount to 1" }}
{{- if and (gt $replicas 1) (eq $scope "pod") }}
{{- fail (printf "registry.replicaCount is %d, but with registry.persistence.enabled false each registry pod keeps artifacts on its own emptyDir: an artifact uploaded to one replica would be missing on the others. Enable registry.persistence and %s" $replicas $fix) }}
{{- else if and (gt $replicas 1) (eq $scope "node") }}
{{- fail (printf "registry.replicaCount is %d, but the artifacts claim's registry.persistence.accessModes (%s) let pods on one node (ReadWriteOnce) or one pod (ReadWriteOncePod) mount it: the other replicas would hang on a Multi-Attach error or stay Pending. To run several, %s" $replicas (include "modelgate.registryAccessModes" . | fromJsonArray | join ", ") $fix) }}
{{- end }}
{{- end }}

{{/*
registry.persistence: the created claim's settings act only when the chart creates it, and none of
the persistence settings acts without persistence.enabled.
*/}}
{{- define "modelgate.checkRegistryPersistence" -}}
{{- $p := .Values.registry.persistence }}
{{- $set := list }}
{{- range $key := list "storageClassName" "accessModes" "size" }}
{{- if index $p $key }}{{ $set = append $set (printf "registry.persistence.%s" $key) }}{{ end }}
{{- end }}
{{- if not $p.enabled }}
{{- if $p.existingClaim }}{{ $set = prepend $set "registry.persistence.existingClaim" }}{{ end }}
{{- if $set }}
{{- fail (printf "%s: act only with registry.persistence.enabled (it is false: artifacts live on an emptyDir); unset them or enable persistence" (join ", " $set)) }}
{{- end }}
{{- else if and $p.existingClaim $set }}
{{- fail (printf "%s: describe the claim the chart creates; with registry.persistence.existingClaim the existing claim's own apply: unset them" (join ", " $set)) }}
{{- end }}
{{- end }}
