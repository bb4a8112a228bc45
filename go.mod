module github.com/toolgate/toolgate

go 1.26.8
