module jitterlab

go 1.26
