package viewer

import (
	"context"

	"github.com/veetbot/veetbrowser/store"
)

// StoreImages are the screenshots an artifact store holds as blobs.
func StoreImages(st store.Reader) Images { return storeImages{st} }

type storeImages struct{ st store.Reader }

func (s storeImages) Images(ctx context.Context, sessionID string) ([]Image, error) {
	blobs, err := s.st.Blobs(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var out []Image
	for _, b := range blobs {
		if b.Kind == "screenshot" {
			out = append(out, Image{ID: b.ID, Seq: b.Seq, Revision: b.Revision})
		}
	}
	return out, nil
}

func (s storeImages) Image(ctx context.Context, sessionID string, id int64) (string, []byte, error) {
	b, err := s.st.Blob(ctx, sessionID, id)
	if err != nil {
		return "", nil, err
	}
	return b.MediaType, b.Data, nil
}
