{{- /*
Checks that keep a value given from being silently ignored (a feature that is off, a key the
chart writes itself), and the defaults of small containers that such checks moved here.
*/}}
{{/*
The settings of a feature that is off act on nothing, so one given there is refused rather than
ignored: while `<path>.enabled` is false (`.enabledDefault` when it is ""), each key of `.keys` under
`.path` (dotted, e.g. "metrics.serviceMonitor") must be unset ("", an empty list or map: their
defaults apply in the templates), and so must each key of the groups of settings in `.groups`.
`.off` says what the feature's being off means. A boolean counts as given either way.
*/}}
{{- define "modelgate.checkOff" -}}
{{- $values := .root.Values }}
{{- range $part := splitList "." .path }}
{{- $values = index $values $part }}
{{- end }}
{{- $enabled := $values.enabled }}
{{- if eq (toString $enabled) "" }}{{ $enabled = .enabledDefault }}{{ end }}
{{- if not $enabled }}
{{- $set := list }}
{{- range $key := .keys | default list }}
{{- if include "modelgate.isGiven" (index $values $key) }}
{{- $set = append $set (printf "%s.%s" $.path $key) }}
{{- end }}
{{- end }}
{{- range $group := .groups | default list }}
{{- $settings := index $values $group }}
{{- range $key := keys $settings | sortAlpha }}
{{- if include "modelgate.isGiven" (index $settings $key) }}
{{- $set = append $set (printf "%s.%s.%s" $.path $group $key) }}
{{- end }}
{{- end }}
{{- end }}
{{- if $set }}
{{- $many := gt (len $set) 1 }}
{{- fail (printf "%s: act%s only with %s.enabled, which is false (%s): unset %s, or set %s.enabled" (join ", " $set) (ternary "" "s" $many) .path .off (ternary "them" "it" $many) .path) }}
{{- end }}
{{- end }}
{{- end }}

{{/* "true" when a setting is given: a boolean, or anything but "", an empty list or map (0 counts). */}}
{{- define "modelgate.isGiven" -}}
{{- if or (kindIs "bool" .) (kindIs "float64" .) (kindIs "int64" .) (kindIs "int" .) (not (empty .)) }}true{{ end }}
{{- end }}

{{/*
Resources of a small chart container (the migration Job, the helm test pod): requests `.cpu` and
`.memory`, limit `.limit` of memory, with the keys given in `.given` over them.
*/}}
{{- define "modelgate.smallResources" -}}
{{- $defaults := dict "requests" (dict "cpu" .cpu "memory" .memory) "limits" (dict "memory" .limit) }}
{{- toYaml (mergeOverwrite $defaults (deepCopy (.given | default dict))) }}
{{- end }}

{{/*
Keys of a map the user gives (`.given`, named `.name`) that the chart sets itself (`.own`) would
be written twice into the same YAML map, leaving the winner to the parser: refused.
*/}}
{{- define "modelgate.refuseOwnKeys" -}}
{{- $taken := list }}
{{- range $key := .own }}{{ if hasKey ($.given | default dict) $key }}{{ $taken = append $taken $key }}{{ end }}{{ end }}
{{- if $taken }}
{{- fail (printf "%s: %s %s the chart's own (%s): use other keys" .name (join ", " $taken) (ternary "are" "is" (gt (len $taken) 1)) .what) }}
{{- end }}
{{- end }}

{{/* The label keys every object of the chart carries (modelgate.labels). */}}
{{- define "modelgate.ownLabelKeys" -}}
{{- list "helm.sh/chart" "app.kubernetes.io/name" "app.kubernetes.io/instance" "app.kubernetes.io/component" "app.kubernetes.io/version" "app.kubernetes.io/part-of" "app.kubernetes.io/managed-by" | toJson }}
{{- end }}
