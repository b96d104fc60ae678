// Package imagecap paints boxes over a captured image and encodes it as a
// JPEG within a byte cap.
package imagecap

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/draw"
	"image/jpeg"
)

// Qualities are the JPEG qualities tried at full size, best first; a
// smaller image is encoded at the last.
var Qualities = []int{80, 60, 40, 25}

// ScaleStep is the factor each smaller try scales the image by, and
// MinWidth the narrowest image tried.
const (
	ScaleStep = 0.75
	MinWidth  = 160
)

// ErrTooLarge: the image does not fit in the cap even at MinWidth and the
// lowest quality.
var ErrTooLarge = errors.New("the image does not fit in the byte cap")

// RGBA returns img as an RGBA image with its origin at (0, 0).
func RGBA(img image.Image) *image.RGBA {
	b := img.Bounds()
	out := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	draw.Draw(out, out.Bounds(), img, b.Min, draw.Src)
	return out
}

// Fill paints each box (clipped to img) in c.
func Fill(img *image.RGBA, boxes []image.Rectangle, c color.RGBA) {
	u := image.NewUniform(c)
	for _, r := range boxes {
		draw.Draw(img, r.Intersect(img.Bounds()), u, image.Point{}, draw.Src)
	}
}

// Crop returns the part r of img, with its origin at (0, 0).
func Crop(img *image.RGBA, r image.Rectangle) *image.RGBA {
	return RGBA(img.SubImage(r.Intersect(img.Bounds())))
}

// Encoded is an image encoded within a cap.
type Encoded struct {
	Data          []byte
	Width, Height int
	Quality       int
	Scale         float64 // the encoded image's size over the original's
}

// FitJPEG encodes img as a JPEG of at most maxBytes: at each quality of
// Qualities at full size, then at the lowest one scaled by ScaleStep again
// and again down to MinWidth pixels wide (an image narrower than that is
// not scaled).
func FitJPEG(img *image.RGBA, maxBytes int) (*Encoded, error) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	try := func(src *image.RGBA, q int, scale float64) (*Encoded, error) {
		var buf bytes.Buffer
		if err := jpeg.Encode(&buf, src, &jpeg.Options{Quality: q}); err != nil {
			return nil, err
		}
		if buf.Len() > maxBytes {
			return nil, nil
		}
		return &Encoded{Data: buf.Bytes(), Width: src.Bounds().Dx(), Height: src.Bounds().Dy(), Quality: q, Scale: scale}, nil
	}
	for _, q := range Qualities {
		if e, err := try(img, q, 1); e != nil || err != nil {
			return e, err
		}
	}
	low := Qualities[len(Qualities)-1]
	for scale := ScaleStep; w > MinWidth; scale *= ScaleStep {
		sw := int(float64(w) * scale)
		if sw <= MinWidth {
			sw, scale = MinWidth, float64(MinWidth)/float64(w)
		}
		sh := max(1, int(float64(h)*scale))
		if e, err := try(Downscale(img, sw, sh), low, scale); e != nil || err != nil {
			return e, err
		}
		if sw == MinWidth {
			break
		}
	}
	return nil, ErrTooLarge
}

// Downscale returns img scaled down to w×h pixels, each pixel the average
// of the source pixels it covers.
func Downscale(img *image.RGBA, w, h int) *image.RGBA {
	sw, sh := img.Bounds().Dx(), img.Bounds().Dy()
	out := image.NewRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		y0, y1 := y*sh/h, max((y+1)*sh/h, y*sh/h+1)
		for x := range w {
			x0, x1 := x*sw/w, max((x+1)*sw/w, x*sw/w+1)
			var r, g, b, a, n uint32
			for sy := y0; sy < y1; sy++ {
				row := img.Pix[sy*img.Stride+x0*4 : sy*img.Stride+x1*4]
				for i := 0; i < len(row); i += 4 {
					r, g, b, a = r+uint32(row[i]), g+uint32(row[i+1]), b+uint32(row[i+2]), a+uint32(row[i+3])
					n++
				}
			}
			o := out.PixOffset(x, y)
			out.Pix[o], out.Pix[o+1], out.Pix[o+2], out.Pix[o+3] = uint8(r/n), uint8(g/n), uint8(b/n), uint8(a/n)
		}
	}
	return out
}
