package imagecap

import (
	"bytes"
	"errors"
	"image"
	"image/color"
	"image/jpeg"
	"math/rand/v2"
	"testing"
)

func noise(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix {
		img.Pix[i] = uint8(r.IntN(256))
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	return img
}

func TestFitJPEGStaysWithinTheCap(t *testing.T) {
	img := noise(800, 600)
	for _, limit := range []int{1 << 20, 64 << 10, 8 << 10} {
		e, err := FitJPEG(img, limit)
		if err != nil {
			t.Fatalf("cap %d: %v", limit, err)
		}
		if len(e.Data) > limit {
			t.Errorf("cap %d: %d bytes", limit, len(e.Data))
		}
		dec, err := jpeg.Decode(bytes.NewReader(e.Data))
		if err != nil || dec.Bounds().Dx() != e.Width || dec.Bounds().Dy() != e.Height {
			t.Fatalf("cap %d: decoded %v (%v), reported %d×%d", limit, dec.Bounds(), err, e.Width, e.Height)
		}
		if e.Scale < 1 && (e.Quality != Qualities[len(Qualities)-1] || e.Width < MinWidth) {
			t.Errorf("cap %d: scaled to %v at quality %d, %d wide", limit, e.Scale, e.Quality, e.Width)
		}
	}
	if _, err := FitJPEG(img, 100); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 100-byte cap: %v, want ErrTooLarge", err)
	}
}

func TestFillAndDownscale(t *testing.T) {
	img := noise(64, 48)
	grey := color.RGBA{R: 128, G: 128, B: 128, A: 255}
	Fill(img, []image.Rectangle{image.Rect(-5, -5, 32, 24)}, grey)
	small := Downscale(img, 16, 12)
	for y := range 6 {
		for x := range 8 {
			if got := small.RGBAAt(x, y); got != grey {
				t.Fatalf("pixel (%d, %d) of a filled area is %v", x, y, got)
			}
		}
	}
	if c := Crop(img, image.Rect(30, 20, 100, 100)); c.Bounds() != image.Rect(0, 0, 34, 28) {
		t.Errorf("crop bounds %v", c.Bounds())
	}
}
