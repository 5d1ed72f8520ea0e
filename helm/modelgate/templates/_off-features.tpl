{{/*
The settings of a feature that is off act on nothing, so one given there is refused rather than
ignored: each key of `.keys` under `.path` (dotted, e.g. "metrics.serviceMonitor") must be unset
("", an empty list or map; their defaults apply in the templates) while `<path>.enabled` is false.
`.off` says what the feature's being off means. A boolean counts as given either way.
*/}}
{{- define "modelgate.checkOff" -}}
{{- $values := .root.Values }}
{{- range $part := splitList "." .path }}
{{- $values = index $values $part }}
{{- end }}
{{- if not $values.enabled }}
{{- $set := list }}
{{- range $key := .keys }}
{{- $value := index $values $key }}
{{- if or (kindIs "bool" $value) (not (empty $value)) }}
{{- $set = append $set (printf "%s.%s" $.path $key) }}
{{- end }}
{{- end }}
{{- if $set }}
{{- $many := gt (len $set) 1 }}
{{- fail (printf "%s: act%s only with %s.enabled, which is false (%s): unset %s, or set %s.enabled" (join ", " $set) (ternary "" "s" $many) .path .off (ternary "them" "it" $many) .path) }}
{{- end }}
{{- end }}
{{- end }}
