package telemetry

import "strconv"

// AppendFrame appends f's datagram to dst. It refuses, with an [*Error]
// and dst unchanged, a value the field does not allow, as [Decode] would.
func AppendFrame(dst []byte, f *Frame) ([]byte, error) {
	v := frameValues(f)
	return appendKind(dst, KindFrame, &v)
}

// AppendTick appends t's datagram to dst, as AppendFrame.
func AppendTick(dst []byte, t *Tick) ([]byte, error) {
	v := tickValues(t)
	return appendKind(dst, KindTick, &v)
}

// appendKind writes "v", "kind", then the kind's fields in order: whole
// numbers in digits, others in the shortest text that reads back the same.
func appendKind(dst []byte, k Kind, v *values) ([]byte, error) {
	fs := kindFields(k)
	for i := range fs {
		if err := fs[i].check(v[i], nil); err != nil {
			return dst, err
		}
	}
	dst = append(dst, `{"v":`...)
	dst = strconv.AppendInt(dst, Version, 10)
	dst = append(dst, `,"kind":"`...)
	dst = append(dst, k.String()...)
	dst = append(dst, '"')
	for i, f := range fs {
		dst = append(dst, ',', '"')
		dst = append(dst, f.name...)
		dst = append(dst, '"', ':')
		if f.integer {
			dst = strconv.AppendInt(dst, int64(v[i]), 10)
		} else {
			dst = strconv.AppendFloat(dst, v[i], 'g', -1, 64)
		}
	}
	return append(dst, '}'), nil
}
