{{/*
Refuses a component's extensions that clash with what the chart renders itself: a volume name
the pod already has, a container name, or a mount path of the main container. Renders nothing.
Arguments: (dict "component" "gateway" "values" .Values.gateway "volumes" (list "tmp")
"containers" (list "gateway") "mountPaths" (list "/tmp")).
*/}}
{{- define "modelgate.checkExtensions" -}}
{{- range .values.extraVolumes }}
{{- if has .name $.volumes }}
{{- fail (printf "%s.extraVolumes: the volume name %q is the chart's own (the pod has %s); pick another" $.component .name (join ", " $.volumes)) }}
{{- end }}
{{- end }}
{{- range (concat .values.initContainers .values.sidecars) }}
{{- if has .name $.containers }}
{{- fail (printf "%s.initContainers/sidecars: the container name %q is the chart's own; pick another" $.component .name) }}
{{- end }}
{{- end }}
{{- range .values.extraVolumeMounts }}
{{- if has .mountPath $.mountPaths }}
{{- fail (printf "%s.extraVolumeMounts: %s is already mounted by the chart (%s); pick another path" $.component .mountPath (join ", " $.mountPaths)) }}
{{- end }}
{{- end }}
{{- end }}

{{/* The init containers of a component's pod spec, from its values (nothing when there are none). */}}
{{- define "modelgate.initContainers" -}}
{{- with .initContainers }}
initContainers:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}
