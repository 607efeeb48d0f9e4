package webhooksig_test

import (
	"fmt"
	"time"

	"github.com/azuld/azuld/notify/webhooksig"
)

func Example() {
	secret := []byte("the secret you registered with POST /v1/webhooks")
	body := []byte(`{"type":"turn","game":"0192…","version":12}`)
	sent := time.Unix(1_795_000_000, 0)

	header := webhooksig.Sign(secret, body, sent) // what azuld sends

	err := webhooksig.Verify(secret, body, header, sent.Add(30*time.Second), 5*time.Minute)
	fmt.Println("fresh:", err)
	err = webhooksig.Verify(secret, body, header, sent.Add(time.Hour), 5*time.Minute)
	fmt.Println("replayed an hour later:", err != nil)
	// Output:
	// fresh: <nil>
	// replayed an hour later: true
}
